import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Names on disk that no vault path can be (issue 52): one such file is reported and everything
/// else syncs. Real `vaultsync` processes against a real server.
@Suite struct LocalNameCLITests: CLISuite {
    /// Makes a file whose name is `bytes` (not valid UTF-8, which a Swift string cannot hold).
    static func makeFile(in folder: URL, named bytes: [UInt8]) throws {
        let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + bytes + [0]
        let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        #expect(fd >= 0, "errno \(errno)")
        _ = write(fd, "a Latin-1 name\n", 15)
        close(fd)
    }

    /// A file named in Latin-1 (`caf\xE9.md`, as an old archive unpacks) is reported by each sync
    /// and by `status`, not counted as failing and never parked, and the rest syncs: exit 0.
    @Test func aNameThatIsNotUTF8IsReportedAndTheRestSyncs() async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "names-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
            #expect(try await vaultsync(["init", phone.path] + link).exitCode == 0)
            try FileManager.default.createDirectory(at: laptop.appendingPathComponent("old"), withIntermediateDirectories: true)
            try Self.makeFile(in: laptop.appendingPathComponent("old"), named: Array("caf".utf8) + [0xE9] + Array(".md".utf8))
            try Data("fine\n".utf8).write(to: laptop.appendingPathComponent("old/fine.md"))
            for round in 1...4 {
                let synced = try await vaultsync(["sync", laptop.path])
                #expect(synced.exitCode == 0, "round \(round): \(synced)")
                #expect((synced.stdout + synced.stderr).contains("old/caf\u{FFFD}.md: the name is not valid UTF-8"), "round \(round): \(synced)")
            }
            let status = try await vaultsync(["status", laptop.path, "--json"])
            #expect(status.exitCode == 0, "\(status)")
            let json = try status.json()
            #expect((json["failing"] as? [Any])?.isEmpty ?? true, "not failing, not parked: \(status.stdout)")
            #expect(status.stdout.contains("old/caf\\ufffd.md") || status.stdout.contains("old/caf\u{FFFD}.md"), "listed: \(status.stdout)")
            let plain = try await vaultsync(["status", laptop.path])
            #expect(plain.stdout.contains("not synced") && plain.stdout.contains("old/caf\u{FFFD}.md"), "\(plain)")
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect((try? String(contentsOf: phone.appendingPathComponent("old/fine.md"), encoding: .utf8)) == "fine\n", "the rest synced")
        }
    }
}
