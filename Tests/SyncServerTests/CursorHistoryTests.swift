import Foundation
import Postgres
import SyncClient
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// Cursors carry the database's history: a device never continues from a position a replaced or
/// restored database does not share with it.
@Suite struct CursorHistoryTests {
    @Test func cursorsOfEveryFormReadBackAndOnlyTheirOwnHistoryContinues() throws {
        let current = Cursor(sequence: 12, purgeMark: 3, history: "a1b2c3d4e5f6")
        #expect(try Cursor(encoded: current.encoded) == current)
        let legacy = try Cursor(encoded: Data("c2.12.3".utf8).base64EncodedString())
        #expect(legacy == Cursor(sequence: 12, purgeMark: 3, history: nil))
        #expect(try Cursor(encoded: Data("c1.7".utf8).base64EncodedString()) == Cursor(sequence: 7, purgeMark: 0, history: nil))
        for bad in ["c3.1.0.", "c3.1.0.xyz!", "c3.-1.0.ab", "c4.1.0.ab"] {
            #expect(throws: ServiceError.self) { try Cursor(encoded: Data(bad.utf8).base64EncodedString()) }
        }
        #expect(current.expiry(purgedThrough: 0, history: "a1b2c3d4e5f6", changeSequence: 20) == nil)
        #expect(legacy.expiry(purgedThrough: 0, history: "a1b2c3d4e5f6", changeSequence: 20) == nil, "cursors from before history ids go on")
        #expect(current.expiry(purgedThrough: 0, history: "ffffffffffff", changeSequence: 20)?.contains("another history") == true)
        #expect(current.expiry(purgedThrough: 0, history: "a1b2c3d4e5f6", changeSequence: 11)?.contains("ahead of the server's database") == true)
        #expect(current.expiry(purgedThrough: 13, history: "a1b2c3d4e5f6", changeSequence: 20)?.contains("purged") == true)
    }

    @Test func afterAResetOrARestoreDevicesReconcileFromTheFullState() async throws {
        try await TestServer.with(configure: { $0.historyCheckInterval = .zero }) { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { laptop.remove(); phone.remove() }
            try laptop.write("a.md", "one\n")
            _ = try await laptop.sync()
            _ = try await phone.sync()
            let device = try await user.newDevice("probe")
            let cursor = try #require(try await device.allChanges().cursor)

            // A backup restored in place: the operator starts a new history.
            _ = try await VaultSyncServer.resetHistory(configuration: server.configuration, logger: TestCluster.quietLogger)
            do {
                _ = try await device.api.state(device.session, cursor: cursor)
                Issue.record("a cursor of the old history was continued")
            } catch let error as SyncAPIError {
                #expect(error.code == .cursorExpired && error.serverMessage.contains("another history"), "\(error)")
            }
            try laptop.write("b.md", "two\n")
            _ = try await laptop.sync()
            let report = try await phone.sync()
            #expect(report.notices.contains { $0.contains("another history of the server's database") && $0.contains("reconciled with the server's full state") }, "\(report.notices)")
            #expect(phone.read("b.md") == "two\n" && phone.read("a.md") == "one\n")

            // A database behind a device's cursor (restored from an older backup) is caught too.
            let db = try PostgresConnection(connectionString: server.databaseURL)
            defer { db.close() }
            let history = try DatabaseHistory.read(db)
            let ahead = Cursor(sequence: 1_000_000, purgeMark: 0, history: history).encoded
            do {
                _ = try await device.api.state(device.session, cursor: ahead)
                Issue.record("a cursor ahead of the database was continued")
            } catch let error as SyncAPIError {
                #expect(error.code == .cursorExpired && error.serverMessage.contains("ahead of the server's database"), "\(error)")
            }
        }
    }
}
