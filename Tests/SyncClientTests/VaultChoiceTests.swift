import Foundation
@testable import SyncClient
import SyncProtocol
import Testing

/// Which vault `init --vault` means, one row per rule.
@Suite struct VaultChoiceTests {
    static let mine = VaultInfo(vaultID: UUID(), name: "Handbook", createdAt: Date(), files: 0, bytes: 0)
    static let anas = VaultInfo(vaultID: UUID(), name: "Handbook", createdAt: Date(), files: 0, bytes: 0, owner: "Ana@Example.org", role: .writer)
    static let bos = VaultInfo(vaultID: UUID(), name: "Family", createdAt: Date(), files: 0, bytes: 0, owner: "bo@example.org", role: .reader)
    static let vaults = [mine, anas, bos]

    @Test(arguments: [
        ("Handbook", mine.vaultID),
        ("ana@example.org/Handbook", anas.vaultID),
        ("ANA@example.ORG/Handbook", anas.vaultID),
        (anas.vaultID.uuidString.lowercased(), anas.vaultID),
        (mine.vaultID.uuidString, mine.vaultID),
        ("Family", nil),
        ("bo@example.org/Handbook", nil),
        ("ana@example.org/handbook", nil),
        ("nobody", nil),
    ] as [(String, UUID?)])
    func aNameMeansOneVault(_ given: String, _ expected: UUID?) {
        #expect(VaultChoice.find(given, in: Self.vaults)?.vaultID == expected)
    }

    @Test func aFolderLinkedToNoVaultSyncsWithItsOwnDefaultNotASharedOne() {
        let sharedDefault = VaultInfo(vaultID: UUID(), name: "default", createdAt: Date(), files: 0, bytes: 0, owner: "ana@example.org", role: .reader)
        let own = VaultInfo(vaultID: UUID(), name: "default", createdAt: Date(), files: 0, bytes: 0)
        #expect(SyncEngine.linked(nil, in: [sharedDefault, own])?.vaultID == own.vaultID)
        #expect(SyncEngine.linked(sharedDefault.vaultID, in: [own, sharedDefault])?.vaultID == sharedDefault.vaultID)
        #expect(SyncEngine.linked(UUID(), in: [own, sharedDefault]) == nil)
    }

    @Test func anInvitationIsFoundByOwnerAndNameOrByTheVaultsID() {
        let invitation = VaultInvitation(
            invitationID: UUID(), vaultID: UUID(), vaultName: "Garden", owner: "cy@example.org", role: .writer, email: "me@example.org", invitedBy: "cy@example.org",
            createdAt: Date(), expiresAt: Date())
        #expect(VaultChoice.invitation("CY@example.org/Garden", in: [invitation]) == invitation)
        #expect(VaultChoice.invitation(invitation.vaultID.uuidString, in: [invitation]) == invitation)
        #expect(VaultChoice.invitation("Garden", in: [invitation]) == nil, "a name alone is one of your own")
    }
}
