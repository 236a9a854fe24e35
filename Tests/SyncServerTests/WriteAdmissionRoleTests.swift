import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// The writer's role is one more input of ``WriteAdmission``: every kind of write, the same rules
/// for the owner, an admin and a writer, and for a reader nothing at all (`read_only`), not even
/// the blobs a push's bytes would record.
@Suite struct WriteAdmissionRoleTests {
    typealias T = WriteAdmissionTests

    /// One case of every kind of write, from the rule tables.
    static let kinds: [T.Case] = [
        T.pushCases[0], T.confirmCases[0], T.deleteCases[0], T.restoreCases[0], T.undeleteCases[0], WriteAdmissionAsOfTests.cases[0], T.conflictBytesCases[0], WriteAdmissionMoveTests.cases[0],
        T.Case(rule: "closing conflict records", snapshot: T.vault([T.row("a.md", 1, "x")]), request: .resolveConflicts, expected: WritePlan()),
        T.Case(
            rule: "a WebDAV property or empty folder", snapshot: T.vault([T.row("a.md", 1, "x")]),
            request: .davState(.init(write: .content("a.md"), submitted: [], holder: UUID())), expected: WritePlan()),
    ]

    @Test(arguments: kinds, VaultRole.allCases)
    func aRoleDecidesWhetherAWriteIsWeighedAtAll(_ c: T.Case, _ role: VaultRole) {
        let plan = WriteAdmission.admit(c.request, in: c.snapshot, by: role)
        switch role {
        case .owner, .admin, .writer: #expect(plan == c.expected, "\(c.rule) as \(role)")
        case .reader: #expect(plan == WritePlan(refusal: .readOnly), "\(c.rule) as a reader")
        }
    }
}
