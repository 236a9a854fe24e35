import Foundation
import Postgres
import SyncClient
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// A WebDAV `MOVE` is one change, also in letter case only, and keeps the modification time a
/// client gave with `X-OC-Mtime`.
@Suite struct WebDAVMoveTests {
    @Test func aMoveIsOneChangeAndKeepsTheClientsModificationTime() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            let put = try await dav.put("/dav/default/note.md", "text\n", headers: ["X-OC-Mtime": "1700000000"])
            #expect(put.status == 201 && put.headers["x-oc-mtime"] == "accepted", "\(put)")
            let listed = WebDAVTests.text(try await dav.propfind("/dav/default/note.md", depth: "0"))
            #expect(listed.contains("<D:getlastmodified>Tue, 14 Nov 2023 22:13:20 GMT</D:getlastmodified>"), "\(listed)")
            #expect(try await dav.send("HEAD", "/dav/default/note.md").headers["last-modified"] == "Tue, 14 Nov 2023 22:13:20 GMT")
            #expect(try await dav.put("/dav/default/bad.md", "x", headers: ["X-OC-Mtime": "yesterday"]).status == 400)
            #expect(try await laptop.read("bad.md") == nil, "a bad time writes nothing")

            let before = try await laptop.allChanges().cursor
            // In letter case only: the destination takes the name the source frees, in the same change.
            let moved = try await dav.send("MOVE", "/dav/default/note.md", headers: ["Destination": "/dav/default/Note.md"])
            #expect(moved.status == 201, "\(WebDAVTests.text(moved))")
            let changes = try await laptop.allChanges(after: before)
            #expect(changes.files.map(\.path.rawValue) == ["Note.md"] && changes.deleted.map(\.path.rawValue) == ["note.md"], "\(changes)")
            #expect(try await laptop.read("Note.md") == "text\n")
            let again = WebDAVTests.text(try await dav.propfind("/dav/default/Note.md", depth: "0"))
            #expect(again.contains("<D:getlastmodified>Tue, 14 Nov 2023 22:13:20 GMT</D:getlastmodified>"), "a move keeps the time: \(again)")

            // An edit on the native device is a newer version: its own time is listed.
            _ = try await laptop.write("Note.md", "edited\n", base: changes.files.first?.version)
            let edited = WebDAVTests.text(try await dav.propfind("/dav/default/Note.md", depth: "0"))
            #expect(!edited.contains("2023"), "\(edited)")
        }
    }

    /// A folder moved over an existing folder is one change (issue 54): the folder there was
    /// deleted in a change of its own first, so a device could sync between the two and see the
    /// destination gone and the moved files not there yet. Counted on the change feed's channel.
    @Test func aFolderMovedOverAnotherIsOneChange() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            for folder in ["from", "to"] { #expect(try await dav.send("MKCOL", "/dav/default/" + folder).status == 201) }
            for path in ["from/a.md", "from/b.md", "to/a.md", "to/old.md"] { #expect(try await dav.put("/dav/default/" + path, path).status == 201) }
            let listener = try PostgresListener(connectionString: server.databaseURL, channels: [ChangeFeedQueries.channel], logger: TestCluster.quietLogger)
            defer { listener.stop() }
            try await Task.sleep(for: .milliseconds(200))  // LISTEN is in place
            let moved = try await dav.send("MOVE", "/dav/default/from", headers: ["Destination": "/dav/default/to", "Overwrite": "T"])
            #expect(moved.status == 204, "\(WebDAVTests.text(moved))")
            #expect(try await dav.put("/dav/default/sentinel.md", "after").status == 201)
            var notices: [[String]] = []
            for await event in listener.events {
                guard case .notification(_, let payload) = event, let notice = try? JSONDecoder().decode(ChangeFeedQueries.Notice.self, from: Data(payload.utf8)) else { continue }
                if notice.p == ["sentinel.md"] { break }
                notices.append(notice.p)
            }
            #expect(notices.count == 1 && Set(notices.first ?? []) == ["from/a.md", "from/b.md", "to/a.md", "to/b.md", "to/old.md"], "\(notices)")
            let files = try await laptop.allChanges().files.map(\.path.rawValue)
            #expect(Set(files) == ["to/a.md", "to/b.md", "sentinel.md"], "\(files)")
            #expect(try await laptop.read("to/a.md") == "from/a.md")
        }
    }
}

/// Writers without a condition at once on one path all land, one after the other, each a version
/// in history (none is told the file changed: they asked for no condition).
@Suite struct ConcurrentPutTests {
    @Test func unconditionalWritersAllLand() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 { group.addTask { try await dav.put("/dav/default/race.md", "writer \(index)\n").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 204 }, "\(statuses)")
            let versions = try await laptop.api.history(try VaultPath("race.md"), session: laptop.session).versions
            #expect(versions.count == 8, "\(versions)")
        }
    }
}

/// A client that waits for `100 Continue` before it sends a body gets it at once.
@Suite struct ExpectContinueTests {
    @Test func curlIsToldToContinueAtOnce() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed: apt-get install curl (infra/install-deps.sh --tests does)")
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server)
            // Told nothing, curl would wait 30 seconds before sending the body anyway, and print no
            // `100 Continue`. (The timeout only ends a hang: the whole suite's load slowed the PUT past 20 s.)
            let run = try await CLIProcess.run(
                "/usr/bin/curl", ["-sv", "--expect100-timeout", "30", "-o", "/dev/null", "-w", "%{http_code}", "-u", "\(dav.email):\(dav.password)",
                    "-H", "Expect: 100-continue", "--data-binary", String(repeating: "x", count: 4096), "-X", "PUT", server.baseURL.absoluteString + "/dav/default/big.md"],
                timeout: .seconds(120))
            #expect(run.stdout == "201" && run.stderr.contains("< HTTP/1.1 100 Continue"), "\(run)")
            #expect(try await dav.send("GET", "/dav/default/big.md").body.count == 4096)
        }
    }
}

/// Each server process spools `PUT` bodies in a folder of its own; at start it clears its own and
/// those of this host's processes that are gone, and leaves running ones' and other hosts' alone.
@Suite struct SpoolFolderTests {
    @Test func aServerClearsOnlyWhatNoRunningProcessUses() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let me = ProcessInfo.processInfo.processIdentifier
        let gone: Int32 = 4_194_300  // above Linux's largest process id
        for name in ["box-1", "box-\(gone)", "elsewhere-\(gone)", "box-\(me)"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
            try Data("cut off".utf8).write(to: folder.appendingPathComponent(name).appendingPathComponent("put-1"))
        }
        let own = try SpooledBody.prepare(folder, host: "box", processID: me)
        #expect(own.lastPathComponent == "box-\(me)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: own.path).isEmpty, "its own is emptied")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["box-1", "elsewhere-\(gone)", "box-\(me)"])
    }
}
