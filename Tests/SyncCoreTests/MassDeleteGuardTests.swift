import SyncCore
import SyncProtocol
import Testing

/// The mass-delete guard, one row per rule: deletions on each side against the vault's size.
@Suite struct MassDeleteGuardTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        /// Files synced last time; the plan deletes `here` of them locally and `onServer` remotely.
        let synced: Int
        let here: Int
        let onServer: Int
        var policy = MassDeletePolicy.standard
        /// The counts held back per side.
        let held: (here: Int, onServer: Int)?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a few deletions go", synced: 100, here: 0, onServer: 5, held: nil),
        Row(name: "over half but only 20 files goes (small vaults delete freely)", synced: 30, here: 0, onServer: 20, held: nil),
        Row(name: "over half and 21 files on the server is held", synced: 30, here: 0, onServer: 21, held: (0, 21)),
        Row(name: "exactly half of a large vault goes", synced: 100, here: 0, onServer: 50, held: nil),
        Row(name: "over half of a large vault is held", synced: 100, here: 0, onServer: 51, held: (0, 51)),
        Row(name: "the server's deletions of most files here are held", synced: 100, here: 60, onServer: 0, held: (60, 0)),
        Row(name: "only the side over the limit is held", synced: 100, here: 5, onServer: 60, held: (0, 60)),
        Row(name: "deleting the last two files of a small vault goes", synced: 2, here: 0, onServer: 2, held: nil),
        Row(name: "deleting every file of a 20-file vault goes", synced: 20, here: 0, onServer: 20, held: nil),
        Row(name: "deleting every file of a 21-file vault is held", synced: 21, here: 0, onServer: 21, held: (0, 21)),
        Row(name: "deleting the last single file goes", synced: 1, here: 0, onServer: 1, held: nil),
        Row(name: "another device deleting a small vault's files goes", synced: 4, here: 4, onServer: 0, held: nil),
        Row(name: "allowed by the user: nothing held", synced: 100, here: 0, onServer: 100, policy: .allowAll, held: nil),
        Row(name: "a stricter policy", synced: 100, here: 0, onServer: 11, policy: MassDeletePolicy(fraction: 0.1, minimumFiles: 10), held: (0, 11)),
        Row(name: "nothing synced yet: nothing to guard", synced: 0, here: 0, onServer: 0, held: nil),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) throws {
        var actions: [SyncAction] = []
        for index in 0..<row.here { actions.append(.deleteLocal(try VaultPath("here/\(index).md"), version: 2)) }
        for index in 0..<row.onServer { actions.append(.pushDelete(try VaultPath("gone/\(index).md"), base: 1)) }
        actions.append(.push(try VaultPath("new.md"), base: nil))  // other actions do not count
        let held = MassDeleteGuard.check(SyncPlan(actions: actions), syncedFiles: row.synced, policy: row.policy)
        #expect(held.map { [$0.here.count, $0.onServer.count] } == row.held.map { [$0.here, $0.onServer] })
    }

    @Test func theSummarySaysHowManyAndWhere() throws {
        let onServer = try (0..<30).map { try VaultPath("notes/\($0).md") } + [try VaultPath("top.md")] + (0..<3).map { try VaultPath("pdf/\($0).pdf") }
        let held = HeldDeletions(here: [], onServer: onServer, vaultFiles: 40)
        #expect(held.summary == ["34 of 40 files would be deleted on the server, because this folder no longer has them (notes/: 30, pdf/: 3, top level: 1)"])
    }
}
