public import Foundation

/// Reads and writes `timestamptz` text in UTC (connections set `TimeZone=UTC`) with microseconds,
/// without a date formatter per row: state queries return many thousands of timestamps.
public enum PostgresTimestamp {
    /// Formats as `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
    public static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = micros / 1_000_000
        var fraction = micros % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let s = String(value)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(fraction, 6))Z"
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff]+00` (PostgreSQL's output in UTC).
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ from: Int, _ length: Int) -> Int64? {
            var value: Int64 = 0
            for i in from..<(from + length) {
                let b = bytes[i]
                guard b >= 0x30, b <= 0x39 else { return nil }
                value = value * 10 + Int64(b - 0x30)
            }
            return value
        }
        guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2),
            let h = number(11, 2), let mi = number(14, 2), let s = number(17, 2)
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if digits < 6 {
                    micros = micros * 10 + Int64(bytes[index] - 0x30)
                    digits += 1
                }
                index += 1
            }
            for _ in digits..<6 { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            guard index + 3 <= bytes.count, let oh = number(index + 1, 2) else { return nil }
            var om: Int64 = 0
            if index + 6 <= bytes.count, bytes[index + 3] == UInt8(ascii: ":"), let minutes = number(index + 4, 2) { om = minutes }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        }
        let days = days(fromCivil: y, mo, d)
        let seconds = days * 86_400 + h * 3600 + mi * 60 + s - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian (year, month, day) of `z0` days since 1970-01-01 (Howard Hinnant's
    /// days-to-civil); WebDAV's HTTP dates use it too.
    public static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}
