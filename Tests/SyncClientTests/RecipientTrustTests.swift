import Foundation
import Testing
import VaultCrypto

@testable import SyncClient

/// Whom a device gives a renewed vault key (issue 53): one row per rule. The member list is the
/// server's; a key goes only to this account's own keys and to numbers this folder pinned.
@Suite struct RecipientTrustTests {
    static let own = SharingKeys.generate().publicKeys
    static let ben = SharingKeys.generate().publicKeys
    static let operatorsKey = SharingKeys.generate().publicKeys  // a key the server added, or Ben's swapped
    static let benID = UUID()

    struct Row: CustomTestStringConvertible, Sendable {
        let rule: String
        let listed: SharingPublicKeys
        let pinned: String?
        let doubt: RecipientTrust.Doubt?
        var testDescription: String { rule }
    }

    static let rows: [Row] = [
        Row(rule: "a member whose number this folder pinned", listed: ben, pinned: ben.safetyNumber, doubt: nil),
        Row(rule: "this account's own keys, never pinned", listed: own, pinned: nil, doubt: nil),
        Row(rule: "a member this folder never pinned (one the server added)", listed: ben, pinned: nil, doubt: .neverPinned(email: "ben@example.org")),
        Row(rule: "a member whose keys are not the ones pinned", listed: operatorsKey, pinned: ben.safetyNumber, doubt: .numberChanged(email: "ben@example.org")),
        Row(rule: "someone listed under this account's name with other keys", listed: operatorsKey, pinned: nil, doubt: .neverPinned(email: "ben@example.org")),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        let recipient = RecipientTrust.Recipient(userID: Self.benID, email: "ben@example.org", keys: row.listed)
        let doubts = RecipientTrust.doubts([recipient], own: Self.own, pinned: row.pinned.map { [Self.benID: $0] } ?? [:])
        #expect(doubts == (row.doubt.map { [$0] } ?? []))
    }

    @Test func theRefusalNamesEachDoubtedPersonAndWhatToDo() {
        let text = RecipientTrust.refusal([.neverPinned(email: "mallory@example.org"), .numberChanged(email: "ben@example.org")])
        #expect(text.contains("mallory@example.org (never compared on this device)") && text.contains("ben@example.org (safety number changed)"))
        #expect(text.contains("vaultsync members confirm EMAIL") && text.contains("nothing was given to anyone"))
    }
}
