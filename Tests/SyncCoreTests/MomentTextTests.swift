import Foundation
import SyncCore
import Testing

/// Moments as a person types them (``MomentText``), against a fixed clock and zone.
@Suite struct MomentTextTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!  // UTC+1 in November
    static let now = ISO8601DateFormatter().date(from: "2026-11-28T15:30:00Z")!  // 16:30 in Berlin

    static let rows: [(text: String, expected: String?)] = [
        ("2026-11-27T09:00:00Z", "2026-11-27T09:00:00Z"),
        ("2026-11-27T09:00:00.250Z", "2026-11-27T09:00:00Z"),
        ("2026-11-27T09:00:00+02:00", "2026-11-27T07:00:00Z"),
        ("2026-11-27T09:00", "2026-11-27T08:00:00Z"),
        ("2026-11-27 09:00:30", "2026-11-27T08:00:30Z"),
        ("2026-11-27", "2026-11-26T23:00:00Z"),
        ("yesterday 09:00", "2026-11-27T08:00:00Z"),
        ("Today 14:30", "2026-11-28T13:30:00Z"),
        ("2h ago", "2026-11-28T13:30:00Z"),
        ("90m", "2026-11-28T14:00:00Z"),
        ("3 days ago", "2026-11-25T15:30:00Z"),
        ("1w", "2026-11-21T15:30:00Z"),
        ("2026-02-30", nil),
        ("2026-13-01", nil),
        ("yesterday", nil),
        ("yesterday 25:00", nil),
        ("2h later", nil),
        ("soon", nil),
        ("", nil),
    ]

    @Test func momentsParseInTheDevicesZone() {
        let format = ISO8601DateFormatter()
        for row in Self.rows {
            let parsed = MomentText.parse(row.text, now: Self.now, timeZone: Self.zone)
            #expect(parsed.map { format.string(from: $0) } == row.expected, "\(row.text)")
        }
    }
}
