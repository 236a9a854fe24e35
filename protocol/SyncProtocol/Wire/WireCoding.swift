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

    /// Parses `2026-03-24T10:30:00Z` or `2026-03-24T10:30:00.123Z` (and offsets). A field out of
    /// its range (`12:99`, February 30) is refused, not rolled over into the next hour or month,
    /// and so is a year before 1970: no vault holds anything older, and before the calendar reform
    /// the parser's calendar and the database's disagree (`0001-01-01` reached Postgres as year 0).
    public static func parse(_ text: String) -> Date? {
        guard fieldsInRange(text) else { return nil }
        return (try? withFraction.parse(text)) ?? (try? plain.parse(text))
    }

    /// Whether `YYYY-MM-DDTHH:MM:SS` (then a fraction and a zone) names a real time: the parser
    /// takes `12:99` for `13:39`. Checked on the bytes, since clients decode a date per file.
    private static func fieldsInRange(_ text: String) -> Bool {
        let bytes = Array(text.utf8.prefix(19))
        guard bytes.count == 19 else { return false }
        func number(_ start: Int, _ length: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + length] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2), let minute = number(14, 2),
            let second = number(17, 2), year >= 1970, (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        // An offset's hours and minutes (`+02:00`); `Z` has none.
        let zone = text.utf8.dropFirst(19).drop { $0 == UInt8(ascii: ".") || (48...57).contains($0) }
        guard let sign = zone.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return true }
        let digits = zone.dropFirst().filter { (48...57).contains($0) }.map { Int($0 - 48) }
        return digits.count == 4 && digits[0] * 10 + digits[1] < 24 && digits[2] * 10 + digits[3] < 60
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
