public import Foundation

/// A moment as a person types it for `restore --as-of` and `--deleted-since`: an ISO 8601 time
/// with its zone (`2026-11-27T09:00:00Z`), a date and time without one, in the device's zone
/// (`2026-11-27T09:00`, `2026-11-27 09:00`, `2026-11-27`: its midnight), a time of today or
/// yesterday (`today 14:30`, `yesterday 09:00`), or a span ago (`2h ago`, `90m`, `3 days ago`,
/// `1w`). Pure: the clock and the zone are passed in.
public enum MomentText {
    /// The moment `text` names; nil when it names none.
    public static func parse(_ text: String, now: Date, timeZone: TimeZone = .current) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let date = ISO8601DateFormatter.withZone(text) { return date }
        if let span = span(text) { return now.addingTimeInterval(-span) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let words = text.split(separator: " ", maxSplits: 1).map(String.init)
        if let day = words.first, day == "today" || day == "yesterday", words.count == 2, let time = clock(words[1]) {
            let start = calendar.startOfDay(for: now)
            let date = day == "today" ? start : calendar.date(byAdding: .day, value: -1, to: start)!
            return calendar.date(bySettingHour: time.hour, minute: time.minute, second: time.second, of: date)
        }
        let parts = text.replacingOccurrences(of: "t", with: " ").split(separator: " ").map(String.init)
        guard (1...2).contains(parts.count) else { return nil }
        let day = parts[0].split(separator: "-").compactMap { Int($0) }
        guard day.count == 3, parts[0].count == 10, (1...12).contains(day[1]), (1...31).contains(day[2]) else { return nil }
        let time = parts.count == 2 ? clock(parts[1]) : (0, 0, 0)
        guard let time else { return nil }
        let components = DateComponents(year: day[0], month: day[1], day: day[2], hour: time.hour, minute: time.minute, second: time.second)
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day[2] else { return nil }  // not 2026-02-30
        return date
    }

    /// `HH:MM` or `HH:MM:SS`.
    private static func clock(_ text: String) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count, numbers[0] < 24, numbers[1] < 60, numbers.count == 2 || numbers[2] < 60 else { return nil }
        return (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
    }

    /// Seconds of `90m`, `2h ago`, `3 days ago`, `1 week ago`.
    private static func span(_ text: String) -> TimeInterval? {
        var rest = Substring(text)
        if rest.hasSuffix(" ago") { rest = rest.dropLast(4) }
        let digits = rest.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let count = Double(digits), count.isFinite else { return nil }
        let unit = rest.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        let seconds: [String: TimeInterval] = [
            "s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60,
            "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400, "w": 604_800, "week": 604_800, "weeks": 604_800,
        ]
        return seconds[unit].map { count * $0 }
    }
}

private extension ISO8601DateFormatter {
    /// A full ISO 8601 time with a zone (`Z` or `+01:00`), with or without fractions of a second.
    static func withZone(_ text: String) -> Date? {
        let upper = text.uppercased()
        guard upper.contains("T"), upper.hasSuffix("Z") || upper.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression) != nil else { return nil }
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: upper) { return date }
        }
        return nil
    }
}
