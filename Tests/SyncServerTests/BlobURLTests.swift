import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

@Suite struct BlobURLTests {
    func reserve(_ device: TestDevice, _ text: String) async throws -> URL {
        let bytes = Data(text.utf8)
        let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("f.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)]), session: device.session)
        return try #require(push.uploads.first?.uploadURL)
    }

    func tamper(_ url: URL, _ change: (inout [URLQueryItem]) -> Void) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        var items = components.queryItems ?? []
        change(&items)
        components.queryItems = items
        return components.url!
    }

    @Test func tamperedUploadURLsAreForbiddenAndWriteNothing() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            let url = try await reserve(device, "payload")
            let longer = tamper(url) { items in items = items.map { $0.name == "size" ? URLQueryItem(name: "size", value: "8") : $0 } }
            let later = tamper(url) { items in items = items.map { $0.name == "expires" ? URLQueryItem(name: "expires", value: "99999999999") : $0 } }
            let unsigned = tamper(url) { items in items.removeAll { $0.name == "signature" } }
            for bad in [longer, later, unsigned] {
                let answer = try await RawHTTP.send("PUT", bad, body: Data("payload".utf8), protocolVersion: nil)
                #expect(answer.status == 403)
                #expect(answer.code == .invalidSignature)
            }
            // Another hash in the path with the same signature.
            let otherHash = ContentHasher.hash(Data("other".utf8)).hex
            let moved = URL(string: url.absoluteString.replacingOccurrences(of: String(url.pathComponents.last!), with: String(otherHash)))!
            #expect(try await RawHTTP.send("PUT", moved, body: Data("other".utf8), protocolVersion: nil).status != 200)
            let blobs = server.dataDirectory.appendingPathComponent("blobs/vaults")
            let stored = (FileManager.default.enumerator(atPath: blobs.path)?.allObjects as? [String] ?? []).filter { $0.count > 60 }
            #expect(stored.isEmpty)
            // The untouched URL works.
            #expect(try await RawHTTP.send("PUT", url, body: Data("payload".utf8), protocolVersion: nil).status == 200)
        }
    }

    @Test func expiredURLsAreForbidden() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("kept.md", "kept")
            let pull = try await device.api.pull(PullRequest(files: [try VaultPath("kept.md")]), session: device.session)
            let download = try #require(pull.downloads.first?.downloadURL)
            #expect(try await RawHTTP.send("GET", download, protocolVersion: nil).status == 200)
            server.clock.advance(by: 3601)
            let expired = try await RawHTTP.send("GET", download, protocolVersion: nil)
            #expect(expired.status == 403)
            #expect(expired.code == .urlExpired)
        }
    }
}

@Suite struct EmbeddedServerTests {
    /// `serve` with no database URL owns a private cluster in its data folder and stops it on shutdown.
    @Test func embeddedDefaultStartsAndStopsItsOwnCluster() async throws {
        let data = URL(fileURLWithPath: "/tmp/vaultsync-embedded-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: data) }
        try await TestServer.with(configure: { $0.databaseURL = nil; $0.dataDirectory = data }) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("hello.md", "from the embedded cluster")
            #expect(try await device.read("hello.md") == "from the embedded cluster")
            #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("postgres/postmaster.pid").path))
        }
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("postgres/PG_VERSION").path))
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("postgres/postmaster.pid").path))
    }
}
