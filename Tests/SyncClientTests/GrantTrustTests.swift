import Foundation
import SyncProtocol
import Testing
import VaultCrypto

@testable import SyncClient

/// When a device takes a vault key given to its account, one row per rule: who signed it (their
/// role and the keys the member list shows), the keys the grant names, the safety number this
/// device saw before, and the refusal (nil: taken).
@Suite struct GrantTrustTests {
    static let ana = SharingKeys.generate().publicKeys
    static let anaAgain = SharingKeys.generate().publicKeys  // Ana's keys made anew, or the server's
    static let anaID = UUID()

    struct Row: CustomTestStringConvertible, Sendable {
        let rule: String
        var role: VaultRole? = .owner
        var listed = GrantTrustTests.ana
        var signed = GrantTrustTests.ana
        var seen: String?
        var signerGone = false
        let refusal: GrantTrust.Refusal?
        var testDescription: String { rule }
    }

    static let rows: [Row] = [
        Row(rule: "signed by the owner with the keys the list shows", refusal: nil),
        Row(rule: "signed by an admin", role: .admin, refusal: nil),
        Row(rule: "signed by the owner whose number this device saw", seen: ana.safetyNumber, refusal: nil),
        Row(rule: "a writer gives nobody a key", role: .writer, refusal: .notManager(email: "ana@example.org")),
        Row(rule: "a reader gives nobody a key", role: .reader, refusal: .notManager(email: "ana@example.org")),
        Row(rule: "someone not in the vault", role: nil, refusal: .unknownSigner),
        Row(rule: "a signer whose account is gone", signerGone: true, refusal: .unknownSigner),
        Row(rule: "signed with keys the list does not show (the server's own)", signed: anaAgain, refusal: .keysDiffer(email: "ana@example.org")),
        Row(
            rule: "the list and the grant both show new keys, but this device saw another number", listed: anaAgain, signed: anaAgain, seen: ana.safetyNumber,
            refusal: .numberChanged(email: "ana@example.org")),
        Row(rule: "new keys whose number was confirmed", listed: anaAgain, signed: anaAgain, seen: anaAgain.safetyNumber, refusal: nil),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        let members = row.role.map { [VaultMember(userID: Self.anaID, email: "ana@example.org", role: $0, addedAt: nil, agreementKey: row.listed.agreement, signingKey: row.listed.signing)] } ?? []
        let pinned = row.seen.map { [Self.anaID: $0] } ?? [:]
        #expect(GrantTrust.check(signer: row.signerGone ? nil : Self.anaID, signerKeys: row.signed, members: members, pinned: pinned) == row.refusal)
    }

    @Test func safetyNumbersOfMembersAreTheirKeys() {
        let member = VaultMember(userID: Self.anaID, email: "ana@example.org", role: .admin, addedAt: nil, agreementKey: Self.ana.agreement, signingKey: Self.ana.signing)
        #expect(member.safetyNumber == Self.ana.safetyNumber)
        #expect(VaultMember(userID: Self.anaID, email: "ana@example.org", role: .admin, addedAt: nil).safetyNumber == nil)
    }
}
