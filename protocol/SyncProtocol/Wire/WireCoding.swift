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
    /// its range (`12:99`, February 30) is refused, not rolled over into the next hour or month.
    public static func parse(_ text: String) -> Date? {
        guard let date = (try? withFraction.parse(text)) ?? (try? plain.parse(text)), readsBack(text, as: date) else { return nil }
        return date
    }

    /// Whether the date and time fields of `text` (`YYYY-MM-DDTHH:MM:SS`, then a fraction and a
    /// zone) are those of `date` in `text`'s own zone: the parser takes `12:99` for `13:39`.
    private static func readsBack(_ text: String, as date: Date) -> Bool {
        let characters = Array(text)
        guard characters.count >= 19 else { return false }
        func number(_ start: Int, _ length: Int) -> Int? { Int(String(characters[start..<start + length])) }
        let zone = characters[19...].drop { $0 == "." || $0.isNumber }
        let offset: Int
        if zone.count == 1, zone.first == "Z" || zone.first == "z" {
            offset = 0
        } else {
            let digits = zone.dropFirst().filter(\.isNumber)
            guard let sign = zone.first, sign == "+" || sign == "-", digits.count == 4, let hours = Int(String(digits.prefix(2))), let minutes = Int(String(digits.suffix(2))),
                hours < 24, minutes < 60
            else { return false }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        guard let timeZone = TimeZone(secondsFromGMT: offset) else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return fields.year == number(0, 4) && fields.month == number(5, 2) && fields.day == number(8, 2) && fields.hour == number(11, 2)
            && fields.minute == number(14, 2) && fields.second == number(17, 2)
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
