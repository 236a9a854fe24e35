import SyncClient
import Testing

/// The status word `vaultsync status` shows, one row per rule of ``VaultStatus/decide``.
@Suite struct VaultStatusTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        var syncing = false
        var signedIn = true
        var lastSync: SyncStatus? = .idle
        var parked = false
        var held = false
        var conflicts = 0
        let expected: SyncStatus
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "nothing recorded: idle", lastSync: nil, expected: .idle),
        Row(name: "a sync running now wins over everything", syncing: true, signedIn: false, parked: true, expected: .syncing),
        Row(name: "signed out", signedIn: false, held: true, expected: .unauthenticated),
        Row(name: "the session refused at the last sync", lastSync: .unauthenticated, expected: .unauthenticated),
        Row(name: "offline stays until a sync gets through", lastSync: .offline, held: true, conflicts: 1, expected: .offline),
        Row(name: "a parked file is an error", parked: true, held: true, expected: .error),
        Row(name: "the last sync failed", lastSync: .error, held: true, expected: .error),
        Row(name: "held deletions wait for the user, not an error", lastSync: .held, held: true, expected: .held),
        Row(name: "held deletions come before conflicts", lastSync: .held, held: true, conflicts: 2, expected: .held),
        Row(name: "open conflicts", lastSync: .conflict, conflicts: 1, expected: .conflict),
        Row(name: "held deletions let through since: idle", lastSync: .held, expected: .idle),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) {
        let status = VaultStatus.decide(
            syncing: row.syncing, signedIn: row.signedIn, lastSync: row.lastSync, parked: row.parked, heldDeletions: row.held, openConflicts: row.conflicts)
        #expect(status == row.expected)
    }
}
