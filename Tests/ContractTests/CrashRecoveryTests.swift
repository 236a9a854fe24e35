import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// Killing the client at each phase boundary and running it again converges with nothing lost,
/// no conflict and no conflict copy.
@Suite struct CrashRecoveryTests {
    /// Where the crash happens: after the server handled the request whose path ends like this.
    static let boundaries: [(String, String)] = [
        ("after state", "/vault/state"),
        ("after push (reserved)", "/vault/push"),
        ("after an upload", "/blobs/"),
        ("after confirm (server has the versions, client never recorded them)", "/vault/push/confirm"),
        ("after pull", "/vault/pull"),
        ("after delete", "/vault/delete"),
    ]

    @Test(arguments: boundaries.map(\.0))
    func crashAndRerunConverges(_ boundary: String) async throws {
        let marker = Self.boundaries.first { $0.0 == boundary }!.1
        try await TestServer.with { server in
            let user = try await server.newUser()
            let a = try await TestVault.link(user, deviceName: "laptop")
            let b = try await TestVault.link(user, deviceName: "phone")
            defer { a.remove(); b.remove() }
            // Shared starting point, then changes of every kind on both sides.
            try a.write("keep.md", "k")
            try a.write("edit.md", "e1")
            try a.write("gone.md", "g")
            try a.write("theirs.md", "t1")
            try await a.sync()
            try await b.sync()
            try a.write("new-a.md", "from the laptop")
            // Larger than the inline limit, so that it goes through a blob upload.
            let attachment = String(repeating: "x", count: Int(InlineContent.maxFileBytes) + 10)
            try a.write("attachment.txt", attachment)
            try a.write("edit.md", "e2 on the laptop")
            try a.delete("gone.md")
            try b.write("theirs.md", "t2 on the phone")
            try b.write("new-b.md", "from the phone")
            try await b.sync()

            let crashing = CrashingTransport { $0.url?.path.contains(marker) == true && ($0.url?.path.hasSuffix(marker) == true || marker == "/blobs/") }
            let crashed = try SyncEngine(root: a.root, transport: crashing)
            let first = try? await crashed.sync()
            // The crash happened: the sync was aborted, or (a blob transfer) it reported the failure.
            #expect(first == nil || first?.failures.isEmpty == false, "\(boundary): no crash happened")
            let rerun = try await SyncEngine(root: a.root).sync()
            #expect(rerun.status == .idle, "\(boundary): \(rerun.failures) \(rerun.notices)")
            try await b.sync()
            try await a.sync()
            let expected = ["keep.md": "k", "edit.md": "e2 on the laptop", "theirs.md": "t2 on the phone", "new-a.md": "from the laptop", "new-b.md": "from the phone", "attachment.txt": attachment]
            #expect(try a.files() == expected, "\(boundary)")
            #expect(try b.files() == expected, "\(boundary)")
            #expect(a.conflictCopies().isEmpty && b.conflictCopies().isEmpty, "\(boundary)")
            #expect(try await a.engine.state.conflicts().isEmpty, "\(boundary)")
        }
    }
}
