import Foundation
import Postgres
@testable import SyncServer
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// The account's usage as counters the writes keep (`vault_usage`, issue 35): after every kind of
/// change (pushes, a new version, deletions, restores, undelete, a conflict record, WebDAV
/// properties and locks, the purge, a deleted vault) the counters equal what the vaults hold, summed the slow way; the purge folds
/// each vault's rows into one, and so does a read that finds them piled up.
@Suite struct UsageCounterTests {
    @Test func theCountersEqualWhatTheVaultsHoldAfterEveryKindOfChange() async throws {
        try await TestServer.with { server in
            let api = server.api
            let ana = try await server.newUser()
            let laptop = try await ana.newDevice("laptop")
            let second = try await api.createVault(named: "second", accessToken: ana.tokens.accessToken)
            let other = laptop.inVault(second.vaultID.uuidString)
            let db = try PostgresConnection(connectionString: server.databaseURL)
            let user = try #require(try db.query("SELECT id FROM users WHERE lower(email) = lower($1)", [ana.email]).first?.uuid(0))
            func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let counted = try QuotaQueries.countedUsage(db, userID: user)
                #expect(try QuotaQueries.usage(db, userID: user) == counted, "\(step): counters against \(counted)", sourceLocation: sourceLocation)
            }
            try check("a new account")

            _ = try await laptop.write([("a.md", "alpha\n", nil), ("b.md", "beta\n", nil), ("c.md", "gamma\n", nil)])
            _ = try await other.write("d.md", "delta in the second vault\n")
            try check("pushes into two vaults")
            _ = try await laptop.write("a.md", "alpha, second version\n", base: 1)
            _ = try await laptop.write("e.md", "alpha\n")
            try check("a new version, and a new file with bytes the vault holds")
            _ = try await api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("b.md"), baseVersion: 1), DeleteFile(path: try VaultPath("c.md"), baseVersion: 1)]), session: laptop.session)
            try check("deletions")
            _ = try await api.restore(RestoreRequest(path: try VaultPath("a.md"), version: 1), session: laptop.session)
            _ = try await api.restoreDeleted(RestoreDeletedRequest(deletedSince: Date(timeIntervalSince1970: 0), under: nil), session: laptop.session)
            try check("a restore and an undelete")
            let theirs = Data("a conflicting version\n".utf8)
            _ = try await api.recordConflict(RecordConflictRequest(
                path: try VaultPath("a.md"), remoteVersion: 3, contentHash: ContentHasher.hash(theirs), sizeBytes: Int64(theirs.count),
                description: "both edited", content: theirs), session: laptop.session)
            try check("a conflict record's bytes")
            let (dav, _) = try await WebDAVTests.client(ana, server)
            let patch = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop><Z:colour>blue</Z:colour><Z:tag>a</Z:tag></D:prop></D:set></D:propertyupdate>"
            #expect(try await dav.send("PROPPATCH", "/dav/default/a.md", body: Data(patch.utf8)).status == 207)
            let info = "<?xml version=\"1.0\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>Ana's phone</D:owner></D:lockinfo>"
            let locked = try await dav.send("LOCK", "/dav/default/a.md", body: Data(info.utf8), headers: ["Depth": "0"])
            #expect(locked.status == 200)
            try check("WebDAV properties and a lock")
            let token = try #require(locked.headers["lock-token"])
            #expect(try await dav.send("UNLOCK", "/dav/default/a.md", headers: ["Lock-Token": token]).status == 204)
            let unpatch = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop><Z:colour>a longer blue</Z:colour></D:prop></D:set><D:remove><D:prop><Z:tag/></D:prop></D:remove></D:propertyupdate>"
            #expect(try await dav.send("PROPPATCH", "/dav/default/a.md", body: Data(unpatch.utf8)).status == 207)
            try check("an unlock, a property changed and one removed")
            _ = try await api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("e.md"), baseVersion: 1)]), session: laptop.session)
            server.clock.advance(by: 400 * 24 * 3600)
            _ = try await server.purge()
            try check("the purge, past every retention")
            let rows = try db.query("SELECT COUNT(*) FROM vault_usage u JOIN vaults v ON v.id = u.vault_id WHERE v.user_id = $1 GROUP BY u.vault_id", [user]).map { try $0.int64(0) }
            #expect(rows.allSatisfy { $0 == 1 }, "the purge folds each vault's rows into one: \(rows)")
            let (tablet, tokens) = try await ana.signedInDevice("tablet")  // the old session's tokens expired meanwhile
            // A busy vault piles rows up between purges: a usage read folds them first.
            for n in 0..<40 { _ = try await tablet.write("busy/\(n).md", "note \(n)\n") }
            let piled = try #require(try db.query("SELECT COUNT(*) FROM vault_usage WHERE vault_id = (SELECT id FROM vaults WHERE user_id = $1 AND name = 'default')", [user]).first?.int64(0))
            #expect(piled > Int64(QuotaQueries.foldAbove), "\(piled) rows")
            try check("forty more writes")
            let folded = try #require(try db.query("SELECT COUNT(*) FROM vault_usage WHERE vault_id = (SELECT id FROM vaults WHERE user_id = $1 AND name = 'default')", [user]).first?.int64(0))
            #expect(folded == 1, "the read folded them: \(folded) rows")
            _ = try await tablet.write("f.md", "after the purge\n")
            _ = try await api.deleteVault(second.vaultID, confirmName: "second", accessToken: tokens.accessToken)
            try check("a deleted vault")
            #expect(try QuotaQueries.usage(db, userID: user).files == 44, "a.md, b.md, c.md, f.md and the forty are live")
        }
    }
}
