import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `--database-url` takes both forms libpq accepts, against a Postgres the server does not own.
@Suite struct DatabaseURLTests {
    enum Form: String, CaseIterable, CustomStringConvertible {
        case keywords, url, urlWithQueryParameters, urlWithOperatorOptions
        var description: String { rawValue }
    }

    /// Rewrites the harness's `host=… port=… user=… dbname=…` string into `form`.
    static func connectionString(_ keywords: String, as form: Form) -> String {
        var fields: [String: String] = [:]
        for pair in keywords.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            fields[parts[0]] = parts[1]
        }
        let host = fields["host"]!, port = fields["port"]!, user = fields["user"]!, database = fields["dbname"]!
        let encodedHost = host.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        switch form {
        case .keywords: return keywords
        case .url: return "postgresql://\(user)@\(encodedHost):\(port)/\(database)"
        case .urlWithQueryParameters: return "postgresql://\(user)@/\(database)?host=\(encodedHost)&port=\(port)&sslmode=disable&application_name=vaultsync"
        // The operator's own session options stay theirs; the server still works in UTC.
        case .urlWithOperatorOptions: return "postgresql://\(user)@\(encodedHost):\(port)/\(database)?options=-c%20TimeZone%3DAsia%2FTokyo"
        }
    }

    @Test(arguments: Form.allCases)
    func theServerRunsOnEachConnectionStringForm(form: Form) async throws {
        try await TestServer.with(configure: { $0.databaseURL = Self.connectionString($0.databaseURL!, as: form) }) { server in
            let device = try await server.newUser().newDevice()
            let written = try await device.write("a.md", "hello")
            #expect(try await device.read("a.md") == "hello")
            // Timestamps round-trip exactly (the session is in UTC whatever the connection asked for).
            let stored = try #require(try await device.allChanges().files.first)
            #expect(stored.updatedAt == written.confirmed.first?.updatedAt)
            #expect(abs(stored.updatedAt.timeIntervalSince(server.clock.now)) < 1)
        }
    }
}
