import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// Small files carried inside push and pull bodies, on every blob backend.
@Suite struct InlineContentTests {
    private func file(_ path: String, _ bytes: Data, inline: Data? = nil) throws -> PushFile {
        PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: inline ?? bytes)
    }

    @Test func inlinePushNeedsNoUploadAndPullReturnsTheBytes() async throws {
        try await TestServer.withEachBackend { server, backend in
            let device = try await server.newUser().newDevice()
            let small = Data("# small note\n".utf8)
            let big = Data(repeating: 7, count: Int(InlineContent.maxFileBytes) + 1)
            let push = try await device.api.push(PushRequest(files: [try file("small.md", small)]), session: device.session)
            let upload = try #require(push.uploads.first)
            #expect(!upload.uploadRequired, "\(backend)")
            #expect(upload.uploadURL == nil)
            let confirm = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(confirm.confirmed.map(\.version) == [1])
            try await device.write("big.bin", bytes: big)

            let paths = [try VaultPath("small.md"), try VaultPath("big.bin")]
            let inline = try await device.api.pull(PullRequest(files: paths, inlineMaxBytes: 1_000_000), session: device.session)
            let byPath = Dictionary(uniqueKeysWithValues: inline.downloads.map { ($0.path.rawValue, $0) })
            #expect(byPath["small.md"]?.content == small)
            #expect(byPath["big.bin"]?.content == nil, "larger than the inline limit: URL only")
            #expect(try await device.download(try #require(byPath["big.bin"]?.downloadURL)) == big)
            let plain = try await device.api.pull(PullRequest(files: paths), session: device.session)
            #expect(plain.downloads.allSatisfy { $0.content == nil }, "not asked for")
        }
    }

    @Test func badInlineContentRefusesTheWholePushAndChangesNothing() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            let good = Data("fine".utf8)
            let cases: [(String, PushFile)] = [
                ("hash", try file("a.md", good, inline: Data("evil".utf8))),
                ("size", PushFile(path: try VaultPath("a.md"), contentHash: ContentHasher.hash(good), sizeBytes: 5, baseVersion: nil, content: good)),
                ("too large", try file("a.md", Data(repeating: 1, count: Int(InlineContent.maxFileBytes) + 1))),
            ]
            for (name, bad) in cases {
                await #expect(throws: SyncAPIError.self, "\(name)") {
                    try await device.api.push(PushRequest(files: [try file("ok.md", good), bad]), session: device.session)
                }
                do {
                    _ = try await device.api.push(PushRequest(files: [bad]), session: device.session)
                } catch let error as SyncAPIError {
                    #expect(error.status == 400 && error.code == .invalidRequest, "\(name): \(error)")
                }
            }
            // Nothing was reserved: confirming version 1 of either path finds no reservation.
            let confirm = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: try VaultPath("ok.md"), version: 1)]), session: device.session)
            #expect(confirm.confirmed.isEmpty)
            #expect(try await device.allChanges().files.isEmpty)
        }
    }

    @Test func inlineTotalIsCappedPerAnswer() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            // 40 files of 60 KiB: 2.4 MiB, more than one answer carries inline.
            let count = 40
            for i in 0..<count { try await device.write("f\(i).bin", bytes: Data(repeating: UInt8(i), count: 60 * 1024)) }
            let paths = try (0..<count).map { try VaultPath("f\($0).bin") }
            let answer = try await device.api.pull(PullRequest(files: paths, inlineMaxBytes: InlineContent.maxFileBytes), session: device.session)
            let inlined = answer.downloads.compactMap(\.content)
            #expect(inlined.count == Int(InlineContent.maxTotalBytes) / (60 * 1024))
            #expect(answer.downloads.count == count)
        }
    }

    /// Framed bodies (inline bytes after the JSON): a push commits them on every backend, the
    /// state answer says the server takes them, and a pull answers framed only to a client that
    /// asks so (`Accept`); other clients get Base64 in JSON as before.
    @Test func framedPushesCommitAndPullsAnswerFramedOnlyWhenAsked() async throws {
        try await TestServer.withEachBackend { server, backend in
            let device = try await server.newUser().newDevice()
            let note = Data("# note\n\u{0}\u{FF}binary-ish\n".utf8)
            let push = try await device.api.push(PushRequest(files: [try file("n.md", note)], commitInline: true), session: device.session, framed: true)
            #expect(push.committed?.confirmed.map(\.version) == [1], "\(backend)")
            #expect(try await device.api.state(device.session).framedBodies == true)

            let url = server.api.baseURL.appendingPathComponent("vault/pull")
            let ask = try WireCoding.encoder().encode(PullRequest(files: [try VaultPath("n.md")], inlineMaxBytes: 1024))
            var headers = RawHTTP.vaultHeaders(device.session.accessToken, device: device.session.deviceID)
            let json = try await RawHTTP.send("POST", url, body: ask, headers: headers)
            #expect(json.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(String(decoding: json.body, as: UTF8.self).contains(note.base64EncodedString()))
            headers["Accept"] = FramedBody.contentType
            let framed = try await RawHTTP.send("POST", url, body: ask, headers: headers)
            #expect(framed.headers["content-type"] == FramedBody.contentType)
            #expect(framed.body.suffix(note.count) == note)
            #expect(try FramedBody.decode(PullResponse.self, from: framed.body).downloads.first?.content == note)
        }
    }

    /// A framed push whose parts do not add up, or whose bytes are not what it declares, is a
    /// 400 saying so, and nothing is written.
    @Test func badFramedPushesAreRefusedAndChangeNothing() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            let good = Data("fine".utf8)
            let request = PushRequest(files: [try file("ok.md", good)], commitInline: true)
            let body = try FramedBody.encode(request)
            let lying = try FramedBody.encode(PushRequest(files: [try file("ok.md", good, inline: Data("evil".utf8))], commitInline: true))
            let cases: [(String, Data, String)] = [
                ("trailing bytes", body + Data("x".utf8), "1 bytes after the last file"),
                ("cut short", body.dropLast(2), "run past the body"),
                ("no length prefix", Data([0, 0]), "length (4 bytes)"),
                ("bytes that are not the declared ones", lying, "hash"),
            ]
            var headers = RawHTTP.vaultHeaders(device.session.accessToken, device: device.session.deviceID)
            headers["Content-Type"] = FramedBody.contentType
            for (name, body, says) in cases {
                let answer = try await RawHTTP.send("POST", server.api.baseURL.appendingPathComponent("vault/push"), body: body, headers: headers)
                #expect(answer.status == 400 && answer.code == .invalidRequest, "\(name): \(answer.status)")
                #expect(answer.envelope?.error.message.contains(says) == true, "\(name): \(answer.envelope?.error.message ?? "")")
            }
            #expect(try await device.allChanges().files.isEmpty)
        }
    }
}
