import Foundation
import SyncCore
@testable import SyncServer
import Testing

/// ``BlindWrite``: what a WebDAV `PUT` without `If-Match` does, one row per rule.
@Suite struct BlindWriteTests {
    @Test(arguments: [
        (seen: Int?.none, current: Int?.none, route: BlindWrite.Route.write(base: nil), rule: "no file: a new one"),
        (seen: 3, current: nil, route: .write(base: nil), rule: "deleted since: a new one (the deletion stays in history)"),
        (seen: 3, current: 3, route: .write(base: 3), rule: "saw the current version: on top of it"),
        (seen: 2, current: 3, route: .merge(base: 2, current: 3), rule: "another device's version it never saw: merged from what it saw"),
        (seen: nil, current: 3, route: .merge(base: nil, current: 3), rule: "never saw the path: merged with no common version"),
    ])
    func route(_ row: (seen: Int?, current: Int?, route: BlindWrite.Route, rule: String)) {
        #expect(BlindWrite.route(seen: row.seen, current: row.current) == row.route, "\(row.rule)")
    }

    @Test(arguments: [
        (sent: "A", current: "A", base: "B", outcome: BlindWrite.Outcome?.some(.unchanged), rule: "the same bytes"),
        (sent: "B", current: "C", base: "B", outcome: .unchanged, rule: "the client changed nothing: the other edit stands"),
        (sent: "P", current: "B", base: "B", outcome: .writeSent, rule: "the current version is the one it saw, under another number"),
        (sent: "P", current: "D", base: "B", outcome: nil, rule: "both changed: the policy reads them"),
        (sent: "P", current: "D", base: nil, outcome: nil, rule: "no common version: the policy decides"),
    ])
    func shortcut(_ row: (sent: String, current: String, base: String?, outcome: BlindWrite.Outcome?, rule: String)) {
        #expect(BlindWrite.shortcut(sent: row.sent, current: row.current, base: row.base) == row.outcome, "\(row.rule)")
    }

    @Test func outcomeOfEachDecision() {
        let (sent, current) = (Data("phone".utf8), Data("desktop".utf8))
        let rows: [(MergeDecision, BlindWrite.Outcome, String)] = [
            (.merged(Data("both".utf8)), .writeMerged(Data("both".utf8)), "a merge of both"),
            (.merged(current), .unchanged, "the current version held the change"),
            (.merged(sent), .writeSent, "the sent bytes held the other change"),
            (.keepLocal, .writeSent, "last writer wins: the sent bytes"),
            (.keepRemote, .conflict("the merge policy kept the other device's version"), "never dropped: kept as a record"),
            (.needsUser("the same line"), .conflict("the same line"), "not merged: a conflict record"),
        ]
        for (decision, outcome, rule) in rows {
            #expect(BlindWrite.outcome(decision, sent: sent, current: current) == outcome, "\(rule)")
        }
    }

    /// The merge itself is the devices' one rule (SyncCore's policies), also for the server.
    @Test func theServerMergesWithTheDevicesPolicies() {
        let base = Data("line 1\nline 2\nline 3\n".utf8)
        let desktop = Data("line 1 desktop\nline 2\nline 3\n".utf8)
        let phone = Data("line 1\nline 2\nline 3 phone\n".utf8)
        let decision = MergePolicies().policy(for: "note.md").merge(local: phone, remote: desktop, base: base, localIsNewer: true)
        #expect(BlindWrite.outcome(decision, sent: phone, current: desktop) == .writeMerged(Data("line 1 desktop\nline 2\nline 3 phone\n".utf8)))
        let binary = MergePolicies().policy(for: "photo.jpg").decideUnread(localIsNewer: true)
        guard case .conflict = BlindWrite.outcome(binary, sent: nil, current: nil) else { Issue.record("a binary changed on both sides is a conflict"); return }
    }
}
