public import Foundation

/// Durations written for people: a whole number and a unit, `90d`, `12h`, `15m` or `30s`
/// (`0` alone means none). Retention settings take this form, so that an operator can watch
/// retention and purge work on a staging server in seconds rather than wait a day.
public enum DurationText {
    /// Parses `text`.
    /// - Throws: ``DurationTextError`` naming the text and the accepted forms.
    public static func parse(_ text: String) throws -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "0" { return .zero }
        guard let unit = trimmed.last, let seconds = unitSeconds[unit] else { throw DurationTextError.invalid(text) }
        let number = trimmed.dropLast()
        guard !number.isEmpty, number.allSatisfy(\.isASCII), let count = Int64(number), count >= 0 else { throw DurationTextError.invalid(text) }
        let (total, overflow) = count.multipliedReportingOverflow(by: seconds)
        guard !overflow, total <= maxSeconds else { throw DurationTextError.tooLong(text) }
        return .seconds(total)
    }

    /// Formats a duration in the largest unit that divides it (`90d`, `36h`, `0`).
    public static func format(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds == 0 { return "0" }
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("m", 60)] where seconds % size == 0 { return "\(seconds / size)\(unit)" }
        return "\(seconds)s"
    }

    private static let unitSeconds: [Character: Int64] = ["d": 86400, "h": 3600, "m": 60, "s": 1]
    /// A century: anything longer is a typo, not a policy.
    private static let maxSeconds: Int64 = 100 * 365 * 86400
}

/// Why a duration setting was refused.
public enum DurationTextError: Error, Equatable, CustomStringConvertible {
    case invalid(String)
    case tooLong(String)

    public var description: String {
        switch self {
        case .invalid(let text): "'\(text)' is not a duration: write a whole number and a unit, e.g. 90d, 12h, 15m or 30s (0 for none)"
        case .tooLong(let text): "'\(text)' is longer than 100 years"
        }
    }
}
