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
            let movedAnswer = try await RawHTTP.send("PUT", moved, body: Data("other".utf8), protocolVersion: nil)
            #expect(movedAnswer.status == 403 && movedAnswer.code == .invalidSignature)
            let blobs = server.dataDirectory.appendingPathComponent("blobs/vaults")
            let stored = (FileManager.default.enumerator(atPath: blobs.path)?.allObjects as? [String] ?? []).filter { $0.count > 60 }
            #expect(stored.isEmpty)
            // The untouched URL works.
            #expect(try await RawHTTP.send("PUT", url, body: Data("payload".utf8), protocolVersion: nil).status == 200)
        }
    }

    /// A tampered path is refused for its signature before anything is looked up: a blob that
    /// exists, one that does not and a path that is no key at all all get the same 403.
    @Test(arguments: [BlobBackend.file, .s3Proxied])
    func tamperedPathsAreForbiddenBeforeAnyLookup(backend: BlobBackend) async throws {
        try await TestServer.with(configure: try await backend.configuration()) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("kept.md", "kept")
            try await device.write("other.md", "other")
            let pull = try await device.api.pull(PullRequest(files: [try VaultPath("kept.md"), try VaultPath("other.md")]), session: device.session)
            let kept = try #require(pull.downloads.first { $0.path.rawValue == "kept.md" }?.downloadURL)
            let other = try #require(pull.downloads.first { $0.path.rawValue == "other.md" }?.downloadURL)
            let upload = try await reserve(device, "payload")
            let auth = ["Authorization": "Bearer \(device.session.accessToken)"]
            func swapPath(_ url: URL, _ path: String) -> URL {
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.path = path
                return components.url!
            }
            let vault = kept.pathComponents[2]
            let tampered = [
                ("GET", swapPath(kept, other.path)),  // a blob that exists, under another blob's signature
                ("GET", swapPath(kept, "/blobs/\(vault)/00/" + String(repeating: "0", count: 64))),  // one that does not
                ("GET", swapPath(kept, "/blobs/\(UUID().uuidString.lowercased())/ab/cd")),  // no key at all
                ("PUT", swapPath(upload, other.path)),
                ("PUT", swapPath(upload, "/blobs/not-a-vault/zz/zz")),
            ]
            for (method, url) in tampered {
                let answer = try await RawHTTP.send(method, url, body: method == "PUT" ? Data("payload".utf8) : nil, headers: auth, protocolVersion: nil)
                #expect(answer.status == 403 && answer.code == .invalidSignature, "\(method) \(url.path) answered \(answer.status)")
            }
            #expect(try await RawHTTP.send("GET", kept, headers: auth, protocolVersion: nil).status == 200)
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
