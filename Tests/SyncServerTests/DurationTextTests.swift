import SyncServer
import Testing

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("90d", 90 * 86400), ("12h", 12 * 3600), ("15m", 900), ("30s", 30), ("0", 0), ("0s", 0), (" 7D ", 7 * 86400),
    ] as [(String, Int64)])
    func acceptedDurations(text: String, seconds: Int64) throws {
        #expect(try DurationText.parse(text) == .seconds(seconds))
    }

    @Test(arguments: ["", "90", "90 days", "d", "-1d", "1.5h", "12w", "１２h", "9999999999999999d"])
    func refusedDurationsSayWhy(text: String) {
        #expect(throws: DurationTextError.self) { try DurationText.parse(text) }
    }

    @Test func theMessageNamesTheTextAndTheForms() {
        #expect(DurationTextError.invalid("90 days").description == "'90 days' is not a duration: write a whole number and a unit, e.g. 90d, 12h, 15m or 30s (0 for none)")
    }

    @Test(arguments: [(Int64(90 * 86400), "90d"), (36 * 3600, "36h"), (90, "90s"), (120, "2m"), (0, "0")] as [(Int64, String)])
    func formatting(seconds: Int64, text: String) {
        #expect(DurationText.format(.seconds(seconds)) == text)
    }
}
