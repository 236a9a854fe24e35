import Foundation
import Postgres
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// A WebDAV client's `DELETE` or `MOVE` keeps an edit it never read (issue 55), as a native
/// device keeps an edit over a deletion. Modelled on Remotely Save (`src/fsWebdav.ts`): it deletes
/// with a plain `DELETE` (no `If-Match`, errors ignored, so the file simply comes back at its next
/// sync) and reads a file with a plain `GET`; a `PROPFIND` is no read of the bytes.
@Suite struct WebDAVUnseenEditTests {
    @Test func aDeleteOrMoveOfAnEditThisClientNeverReadKeepsIt() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let desktop = try await user.newDevice("desktop")
            let (phone, _) = try await WebDAVTests.client(user, server, name: "Remotely Save")
            #expect(try await phone.put("/dav/default/note.md", "from the phone\n").status == 201)
            _ = try await desktop.write("note.md", "the desktop's edit\n", base: 1)

            // The phone deletes the note it last sent; the desktop's edit since is kept.
            #expect(try await phone.propfind("/dav/default/note.md", depth: "0").status == 207)
            let deleted = try await phone.send("DELETE", "/dav/default/note.md")
            #expect(deleted.status == 412 && WebDAVTests.text(deleted).contains("changed on another device"), "\(deleted.status) \(WebDAVTests.text(deleted))")
            #expect(try await desktop.read("note.md") == "the desktop's edit\n")
            let moved = try await phone.send("MOVE", "/dav/default/note.md", headers: ["Destination": "/dav/default/moved.md"])
            #expect(moved.status == 412, "\(moved.status) \(WebDAVTests.text(moved))")
            #expect(try await desktop.read("note.md") == "the desktop's edit\n")
            #expect(try await desktop.read("moved.md") == nil)

            // Once it read that version, it may delete it.
            #expect(try await phone.send("GET", "/dav/default/note.md").status == 200)
            #expect(try await phone.send("DELETE", "/dav/default/note.md").status == 204)
            #expect(try await desktop.read("note.md") == nil)

            // A folder: the edit it never read stays, the rest goes, and the 207 names what stayed.
            #expect(try await phone.send("MKCOL", "/dav/default/trip").status == 201)
            for name in ["a.md", "b.md"] { #expect(try await phone.put("/dav/default/trip/" + name, name).status == 201) }
            _ = try await desktop.write("trip/a.md", "edited on the desktop\n", base: 1)
            let folder = try await phone.send("DELETE", "/dav/default/trip/")
            #expect(folder.status == 207 && WebDAVTests.text(folder).contains("trip/a.md") && WebDAVTests.text(folder).contains("412"), "\(WebDAVTests.text(folder))")
            #expect(try await desktop.read("trip/a.md") == "edited on the desktop\n")
            #expect(try await desktop.read("trip/b.md") == nil)

            // With If-Match the ETag decides, as in standard WebDAV.
            let etag = try #require(try await phone.send("HEAD", "/dav/default/trip/a.md").headers["etag"])
            _ = try await desktop.write("trip/a.md", "edited again\n", base: 2)
            #expect(try await phone.send("DELETE", "/dav/default/trip/a.md", headers: ["If-Match": etag]).status == 412)

            // A client that never read nor wrote a file (rclone deleting what its source lacks) deletes it.
            let (other, _) = try await WebDAVTests.client(user, server, name: "rclone")
            #expect(try await other.send("DELETE", "/dav/default/trip/a.md").status == 204)
            #expect(try await desktop.read("trip/a.md") == nil)

            // What a client saw of a path goes with the path's purge.
            let db = try PostgresConnection(connectionString: server.databaseURL)
            let rows = { try db.query("SELECT count(*) FROM webdav_seen WHERE path LIKE 'trip/%'").first?.int(0) ?? -1 }
            #expect(try rows() > 0)
            server.clock.advance(by: 400 * 24 * 3600)
            _ = try await server.purge()
            #expect(try rows() == 0)
        }
    }
}
