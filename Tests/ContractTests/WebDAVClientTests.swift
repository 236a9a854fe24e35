import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `/dav/` driven by WebDAV clients nobody here wrote: litmus, the WebDAV test suite (Debian's
/// package), against a vault of a real server.
@Suite struct WebDAVClientTests {
    /// litmus's `basic` suite (OPTIONS, PUT and GET, a UTF-8 name too, a PUT without its folder,
    /// MKCOL over a file, again, without a parent and with a body, DELETE of a file, of nothing, of
    /// a folder, a URL with a fragment), `http` (`Expect: 100-continue`), `copymove` (COPY and
    /// MOVE of files and folders, Overwrite, a missing destination folder, a shallow copy),
    /// `props` (dead properties set, removed, in order, with namespaces and values of XML, moved
    /// with their file) and `locks` (exclusive and shared locks, discovery, refresh, a write
    /// without the token refused, conditional `If` headers, a folder's deep lock, an unmapped URL).
    @Test(arguments: ["basic", "http", "copymove", "props", "locks"])
    func litmusPasses(_ suite: String) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/litmus"), "litmus is not installed: apt-get install litmus (infra/install-deps.sh --tests does)")
        try await TestServer.with { server in
            let user = try await server.newUser()
            let created = try await server.api.makeAppPassword(name: "litmus", accessToken: user.tokens.accessToken)
            // litmus writes debug.log and child.log where it runs: a folder of its own, not the repository.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("litmus-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try await CLIProcess.run(
                "/bin/sh", ["-c", "cd \"$0\" && exec /usr/bin/litmus \"$@\"", folder.path, server.baseURL.absoluteString + "/dav/default/", user.email, created.password],
                // A guard against a hang only: litmus's verdict is what is checked. Under the whole
                // suite's start on 2 cores, `copymove` (its `copy_coll` makes dozens of requests of
                // a debug-built server) outran 120 s twice; alone, the five suites take 5 s.
                environment: ["TESTS": suite], timeout: .seconds(600))
            #expect(run.exitCode == 0 && !run.stdout.contains("FAIL"), "\(run)")
            #expect(run.stdout.contains("<- summary for `\(suite)': of ") && run.stdout.contains("100.0%"), "\(run.stdout)")
            #expect(!run.stdout.contains("WARNING") && !run.stdout.contains("warning"), "litmus warns of nothing: \(run.stdout)")
        }
    }

    /// webdav4 (fsspec's WebDAV client, from PyPI) with names in NFD as a Mac writes them: it reads
    /// a file's properties with no `Depth` and finds the answer by the URL it asked for, so the
    /// answer names the file as asked (with the NFC href it found nothing: "KeyError").
    @Test func webdav4ReadsAndWritesNamesInNFD() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let created = try await server.api.makeAppPassword(name: "webdav4", accessToken: user.tokens.accessToken)
            let script = """
                import io, sys
                from webdav4.client import Client
                c = Client(sys.argv[1], auth=(sys.argv[2], sys.argv[3]), timeout=120)  # httpx's 5 s is short beside the whole suite
                nfd, nfc = "Cre\\u0300me.md", "Cr\\u00e8me.md"
                c.upload_fileobj(io.BytesIO(b"from webdav4\\n"), nfd, overwrite=True)
                print("size", c.info(nfd)["content_length"], c.info(nfc)["content_length"])
                b = io.BytesIO(); c.download_fileobj(nfd, b); print("read", b.getvalue().decode().strip())
                print("listed", sorted(e["name"] for e in c.ls("", detail=True)) == [nfc])
                c.remove(nfd); print("gone", not c.exists(nfc))
                """
            let run = try await CLIProcess.run("/usr/bin/env", ["python3", "-c", script, server.baseURL.absoluteString + "/dav/default/", user.email, created.password])
            #expect(run.exitCode == 0, "\(run)")
            #expect(run.stdout.split(separator: "\n").map(String.init) == ["size 13 13", "read from webdav4", "listed True", "gone True"], "\(run)")
            let deleted = try await laptop.allChanges().deleted.map(\.path.rawValue)
            #expect(try await laptop.read("Crème.md") == nil && deleted == ["Crème.md"], "one file, stored NFC: \(deleted)")
        }
    }

    /// rclone (Debian's package) as a WebDAV client with an app password the real CLI made: a
    /// 2,000-note vault copied up (vendor `owncloud`, so modification times go with `X-OC-Mtime`),
    /// a native device then holds the same bytes, an edit on the native device reaches
    /// `rclone sync` down, `rclone bisync` carries edits both ways, and a deletion made over WebDAV
    /// reaches the device, named as the app password's device in history.
    /// Runs Debian's rclone against the server's `default` vault as the remote `vs:` (WebDAV,
    /// `vendor=owncloud`, configured by environment), retrying nothing.
    static func rclone(_ server: TestServer, email: String, password: String, timeout: Duration) async throws -> @Sendable ([String]) async throws -> CLIResult {
        let obscured = try await CLIProcess.run("/usr/bin/rclone", ["obscure", password])
        let remote = [
            "RCLONE_CONFIG_VS_TYPE": "webdav", "RCLONE_CONFIG_VS_URL": server.baseURL.absoluteString + "/dav/default/", "RCLONE_CONFIG_VS_VENDOR": "owncloud",
            "RCLONE_CONFIG_VS_USER": email, "RCLONE_CONFIG_VS_PASS": obscured.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
        ]
        return { arguments in
            try await CLIProcess.run("/usr/bin/rclone", arguments + ["--config", "/dev/null", "--low-level-retries", "1", "--retries", "1"], environment: remote, timeout: timeout)
        }
    }

    @Test func rcloneCopiesUpAndDownBesideANativeDevice() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/rclone"), "rclone is not installed: apt-get install rclone (infra/install-deps.sh --tests does)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("rclone-\(UUID().uuidString.prefix(8))")
        let (source, native, down) = (base.appendingPathComponent("source"), base.appendingPathComponent("native"), base.appendingPathComponent("down"))
        defer { try? FileManager.default.removeItem(at: base) }
        var notes: [String] = []
        for index in 0..<2_000 {
            let relative = "folder \(index % 20)/sub/note-\(index).md"
            let file = source.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("# Note \(index)\n\nBody \(index) with ünïcode.\n".utf8).write(to: file)
            notes.append(relative)
        }
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: source.appendingPathComponent("picture.bin"))
        let old = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: source.appendingPathComponent("folder 0/sub/note-0.md").path)
        try await TestServer.with { server in
            let email = "rclone-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let environment = ["VAULTSYNC_PASSWORD": "correct horse battery"]
            let linked = try await CLIProcess.run("vaultsync", ["init", native.path, "--server", server.baseURL.absoluteString, "--email", email, "--create-account"], environment: environment)
            #expect(linked.exitCode == 0, "\(linked)")
            let made = try await CLIProcess.run("vaultsync", ["app-password", "create", "rclone on the laptop", "--vault", native.path, "--json"], environment: environment)
            #expect(made.exitCode == 0, "\(made)")
            let password = try #require(try made.json()["password"] as? String)
            #expect(try made.json()["url"] as? String == server.baseURL.absoluteString + "/dav/default/" && made.json()["user"] as? String == email, "\(made.stdout)")
            let human = try await CLIProcess.run("vaultsync", ["app-password", "create", "another", "--vault", native.path], environment: environment)
            #expect(human.exitCode == 0 && human.stdout.contains("/dav/default/") && human.stdout.contains("user \(email)"), "\(human)")

            let rclone = try await Self.rclone(server, email: email, password: password, timeout: .seconds(300))
            func text(_ folder: URL, _ relative: String) throws -> String { try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8) }
            func sync() async throws {
                let synced = try await CLIProcess.run("vaultsync", ["sync", native.path], environment: environment, timeout: .seconds(300))
                #expect(synced.exitCode == 0, "\(synced)")
            }
            let up = try await rclone(["copy", source.path, "vs:", "--transfers", "8"])
            #expect(up.exitCode == 0, "\(up)")
            let checked = try await rclone(["check", source.path, "vs:"])
            #expect(checked.exitCode == 0 && checked.stderr.contains("2001 matching files"), "\(checked)")
            let listed = try await rclone(["lsl", "vs:folder 0/sub/note-0.md"])
            #expect(listed.stdout.contains("2023-11-14 22:13:20"), "the modification time went with X-OC-Mtime: \(listed)")
            try await sync()
            for relative in notes + ["picture.bin"] {
                #expect(try Data(contentsOf: native.appendingPathComponent(relative)) == Data(contentsOf: source.appendingPathComponent(relative)), "\(relative)")
            }

            // The native device edits; rclone brings it down.
            try Data("edited natively\n".utf8).write(to: native.appendingPathComponent("folder 1/sub/note-1.md"))
            try await sync()
            let synced = try await rclone(["sync", "vs:", down.path])
            #expect(synced.exitCode == 0, "\(synced)")
            #expect(try text(down, "folder 1/sub/note-1.md") == "edited natively\n")

            // bisync both ways: an edit on each side and a deletion on rclone's reach the other.
            let work = base.appendingPathComponent("bisync").path
            let first = try await rclone(["bisync", down.path, "vs:", "--resync", "--workdir", work])
            #expect(first.exitCode == 0, "\(first)")
            // The server's clock stands still unless moved; a real one has moved on by the next edit.
            server.clock.advance(by: 60)
            try Data("edited natively again\n".utf8).write(to: native.appendingPathComponent("folder 3/sub/note-3.md"))
            try await sync()
            try Data("edited beside rclone\n".utf8).write(to: down.appendingPathComponent("folder 4/sub/note-4.md"))
            try FileManager.default.removeItem(at: down.appendingPathComponent("folder 5/sub/note-5.md"))
            let both = try await rclone(["bisync", down.path, "vs:", "--workdir", work])
            #expect(both.exitCode == 0, "\(both)")
            #expect(try text(down, "folder 3/sub/note-3.md") == "edited natively again\n")
            try await sync()
            #expect(try text(native, "folder 4/sub/note-4.md") == "edited beside rclone\n")
            #expect(!FileManager.default.fileExists(atPath: native.appendingPathComponent("folder 5/sub/note-5.md").path))
            let history = try await CLIProcess.run("vaultsync", ["history", "folder 5/sub/note-5.md", "--vault", native.path], environment: environment)
            #expect(history.stdout.contains("rclone on the laptop"), "the deletion is named as the app password's device: \(history)")
        }
    }

    /// rclone (Debian's package) copies a note over one a native device edited since rclone last
    /// copied it down: rclone sends no `If-Match`, and on another server its copy replaces the
    /// edit. Here the two are merged: the native device gets both edits, and rclone's next copies
    /// down bring the merge.
    @Test func rcloneOverAnEditItNeverCopiedIsMerged() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/rclone"), "rclone is not installed: apt-get install rclone (infra/install-deps.sh --tests does)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("rclone-merge-\(UUID().uuidString.prefix(8))")
        let (native, phone) = (base.appendingPathComponent("native"), base.appendingPathComponent("phone"))
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: native, withIntermediateDirectories: true)
        try Data("# Plan\n\nline 1\nline 2\nline 3\n".utf8).write(to: native.appendingPathComponent("plan.md"))
        try await TestServer.with { server in
            let email = "rclone-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let environment = ["VAULTSYNC_PASSWORD": "correct horse battery"]
            let linked = try await CLIProcess.run("vaultsync", ["init", native.path, "--server", server.baseURL.absoluteString, "--email", email, "--create-account"], environment: environment)
            #expect(linked.exitCode == 0, "\(linked)")
            func sync() async throws {
                let synced = try await CLIProcess.run("vaultsync", ["sync", native.path], environment: environment, timeout: .seconds(120))
                #expect(synced.exitCode == 0, "\(synced)")
            }
            try await sync()
            let made = try await CLIProcess.run("vaultsync", ["app-password", "create", "rclone on the phone", "--vault", native.path, "--json"], environment: environment)
            let password = try #require(try made.json()["password"] as? String, "\(made)")
            let rclone = try await Self.rclone(server, email: email, password: password, timeout: .seconds(120))
            func text(_ folder: URL) throws -> String { try String(contentsOf: folder.appendingPathComponent("plan.md"), encoding: .utf8) }
            let down = try await rclone(["copy", "vs:", phone.path])
            #expect(down.exitCode == 0 && (try? text(phone)) == "# Plan\n\nline 1\nline 2\nline 3\n", "\(down)")

            // The native device edits line 1; rclone's copy edits line 3, later, and goes up.
            server.clock.advance(by: 60)
            try Data("# Plan\n\nline 1, natively\nline 2\nline 3\n".utf8).write(to: native.appendingPathComponent("plan.md"))
            try await sync()
            try Data("# Plan\n\nline 1\nline 2\nline 3, beside rclone\n".utf8).write(to: phone.appendingPathComponent("plan.md"))
            try FileManager.default.setAttributes([.modificationDate: server.clock.now.addingTimeInterval(120)], ofItemAtPath: phone.appendingPathComponent("plan.md").path)
            let up = try await rclone(["copy", phone.path, "vs:"])
            #expect(up.exitCode == 0, "\(up)")
            let merged = "# Plan\n\nline 1, natively\nline 2\nline 3, beside rclone\n"
            try await sync()
            #expect(try text(native) == merged, "the native edit is not replaced: both are current")

            // rclone's copies down bring the merge (within two: its first listing after the
            // upload may show it the bytes it sent).
            server.clock.advance(by: 60)
            for _ in 0..<2 where try text(phone) != merged {
                let again = try await rclone(["copy", "vs:", phone.path])
                #expect(again.exitCode == 0, "\(again)")
            }
            #expect(try text(phone) == merged)
        }
    }
}
