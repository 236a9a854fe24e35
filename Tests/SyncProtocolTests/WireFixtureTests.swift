import Foundation
import SyncProtocol
import Testing

/// The seed's JSON examples decode into our DTOs, and re-encode to the same JSON (plus only
/// documented additive fields).
@Suite struct WireFixtureTests {
    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    /// Decodes, re-encodes and checks that every value of the fixture is in the output unchanged;
    /// returns the keys the output adds.
    func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ name: String) throws -> Set<String> {
        let data = try Self.fixture(name)
        let value = try WireCoding.decoder().decode(T.self, from: data)
        let encoded = try WireCoding.encoder().encode(value)
        #expect(try WireCoding.decoder().decode(T.self, from: encoded) == value)
        let original = try JSONSerialization.jsonObject(with: data)
        let again = try JSONSerialization.jsonObject(with: encoded)
        var added = Set<String>()
        try assertContained(original, in: again, at: name, added: &added)
        return added
    }

    private func assertContained(_ expected: Any, in actual: Any, at path: String, added: inout Set<String>) throws {
        switch (expected, actual) {
        case (let e as [String: Any], let a as [String: Any]):
            for (key, value) in e {
                if value is NSNull, a[key] == nil { continue }
                let inner = try #require(a[key], "\(path).\(key) missing after round trip")
                try assertContained(value, in: inner, at: "\(path).\(key)", added: &added)
            }
            added.formUnion(Set(a.keys).subtracting(e.keys))
        case (let e as [Any], let a as [Any]):
            #expect(e.count == a.count, "\(path): array length")
            for (index, pair) in zip(e, a).enumerated() { try assertContained(pair.0, in: pair.1, at: "\(path)[\(index)]", added: &added) }
        default:
            #expect((expected as? NSObject) == (actual as? NSObject), "\(path): \(expected) became \(actual)")
        }
    }

    @Test func vaultState() throws {
        #expect(try roundTrip(VaultStateResponse.self, "vault_state").isSubset(of: ["cursor", "has_more", "version"]))
        let state = try WireCoding.decoder().decode(VaultStateResponse.self, from: Self.fixture("vault_state"))
        #expect(state.files[0].path.rawValue == "sources/beyond-good-and-evil.md")
        #expect(state.files[0].updatedAt == Date(timeIntervalSince1970: 1_774_348_200))
        #expect(state.deletedSince[0].deletedByDevice == "Ethan's iPhone")
    }

    @Test func pushRequest() throws {
        #expect(try roundTrip(PushRequest.self, "push_request").isEmpty)
        let request = try WireCoding.decoder().decode(PushRequest.self, from: Self.fixture("push_request"))
        #expect(request.files[0].baseVersion == nil)
        #expect(request.files[1].baseVersion == 3)
        // base_version is written as an explicit null, as in the seed.
        #expect(String(decoding: try WireCoding.encoder().encode(request), as: UTF8.self).contains(#""base_version":null"#))
    }

    @Test func pushResponses() throws {
        #expect(try roundTrip(PushResponse.self, "push_response").isSubset(of: ["rejected", "upload_required"]))
        #expect(try roundTrip(PushResponse.self, "push_conflict_response").isSubset(of: ["rejected", "server_deleted"]))
    }

    @Test func otherRequestsAndResponses() throws {
        #expect(try roundTrip(ConfirmRequest.self, "confirm_request").isEmpty)
        #expect(try roundTrip(PullRequest.self, "pull_request").isEmpty)
        #expect(try roundTrip(PullResponse.self, "pull_response").isSubset(of: ["missing"]))
        #expect(try roundTrip(DeleteRequest.self, "delete_request").isEmpty)
        #expect(try roundTrip(RegisterDeviceRequest.self, "register_device_request").isEmpty)
    }

    /// A client must not need the release or the limits in `/health`: a later server leaves them out.
    @Test func healthWithoutReleaseOrLimitsDecodes() throws {
        let health = try WireCoding.decoder().decode(HealthResponse.self, from: Data(#"{"status": "ok", "protocol_versions": [1]}"#.utf8))
        #expect(health.serverVersion == nil && health.limits == nil && health.protocolVersions == [1])
    }

    @Test func seedPlaceholderHashesAreRejected() {
        let json = Data(#"{"files":[{"path":"a.md","content_hash":"sha256:abc123...","size_bytes":1,"base_version":null}]}"#.utf8)
        #expect(throws: ContentHashError.self) { try WireCoding.decoder().decode(PushRequest.self, from: json) }
    }

    @Test func timestampsWithAndWithoutFractionsDecode() throws {
        #expect(WireDate.parse("2026-03-24T10:30:00Z") == Date(timeIntervalSince1970: 1_774_348_200))
        #expect(WireDate.parse("2026-03-24T10:30:00.250Z") == Date(timeIntervalSince1970: 1_774_348_200.25))
        #expect(WireDate.parse("2026-03-24T12:30:00+02:00") == Date(timeIntervalSince1970: 1_774_348_200))
        #expect(WireDate.parse("yesterday") == nil)
        // Out-of-range fields are refused, not rolled over (the fuzzer found `12:99` taken for `13:39`).
        for text in ["2024-01-01T12:99:00Z", "2024-02-30T10:00:00Z", "2024-13-01T10:00:00Z", "2024-01-01T24:30:00Z", "2024-01-01T10:00:61Z", "2024-01-01T10:00:00+25:00", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z"] {
            #expect(WireDate.parse(text) == nil, "\(text)")
        }
        #expect(WireDate.parse("2024-02-29T23:59:59.999-08:00").map { abs($0.timeIntervalSince1970 - 1_709_279_999.999) < 0.000_5 } == true)
        #expect(WireDate.format(Date(timeIntervalSince1970: 1_774_348_200)) == "2026-03-24T10:30:00Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: 1_774_348_200.5)) == "2026-03-24T10:30:00.500Z")
        // A millisecond value a hair below its decimal form still prints as that millisecond.
        #expect(WireDate.format(Date(timeIntervalSince1970: 1_774_348_200.123 - 1e-7)) == "2026-03-24T10:30:00.123Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: 1_774_348_200.007)) == "2026-03-24T10:30:00.007Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: 1_774_348_200.9996)) == "2026-03-24T10:30:01Z")
        for millis in stride(from: Int64(0), to: 1000, by: 37) {
            let date = Date(timeIntervalSince1970: 1_774_348_200 + Double(millis) / 1000)
            #expect(WireDate.parse(WireDate.format(date)).map { abs($0.timeIntervalSince(date)) < 0.000_5 } == true)
        }
    }
}
