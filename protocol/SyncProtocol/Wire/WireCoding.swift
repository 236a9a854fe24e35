public import Foundation

/// The JSON encoder and decoder both sides use: ISO-8601 dates (fractional seconds accepted
/// on input, written only when non-zero), sorted keys for stable output.
public enum WireCoding {
    /// A decoder for protocol JSON.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = WireDate.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO-8601 timestamp")
            }
            return date
        }
        return decoder
    }

    /// An encoder for protocol JSON.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.format(date))
        }
        return encoder
    }
}

/// ISO-8601 timestamps as the protocol writes and reads them.
public enum WireDate {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let plain = Date.ISO8601FormatStyle()

    /// Parses `2026-03-24T10:30:00Z` or `2026-03-24T10:30:00.123Z` (and offsets).
    public static func parse(_ text: String) -> Date? {
        (try? withFraction.parse(text)) ?? (try? plain.parse(text))
    }

    /// Formats with millisecond precision (rounded), omitting the fraction when it is zero.
    /// The fraction is written by hand: the format style truncates, so a millisecond value held as
    /// a binary double a hair below it would come out one millisecond early.
    public static func format(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = millis / 1000
        var fraction = millis % 1000
        if fraction < 0 {
            fraction += 1000
            seconds -= 1
        }
        let whole = plain.format(Date(timeIntervalSince1970: TimeInterval(seconds)))
        guard fraction != 0 else { return whole }
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
