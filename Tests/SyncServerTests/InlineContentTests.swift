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
}
