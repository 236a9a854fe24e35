@testable import SyncServer
import Foundation
import SyncProtocol
import Testing

/// Who may change a shared vault's members, one row per rule: the action, the actor's role,
/// the vault's key generations (none: a plain vault), and the refusal (nil: allowed).
@Suite struct MemberAdmissionTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let rule: String
        let action: MemberAdmission.Action
        let actors: [VaultRole]
        /// Each generation's key id; empty for a plain vault.
        var keyIDs: [String] = []
        let refusal: MemberAdmission.Refusal?
        var testDescription: String { rule }
    }

    static let managers: [VaultRole] = [.owner, .admin]
    static let others: [VaultRole] = [.writer, .reader]
    static let everyone = VaultRole.allCases
    static let ids = ["aaaa", "bbbb"]
    static let key1 = MemberAdmission.KeyName(generation: 1, keyID: "aaaa")
    static let key2 = MemberAdmission.KeyName(generation: 2, keyID: "bbbb")
    static let key3 = MemberAdmission.KeyName(generation: 3, keyID: "0123456789abcdef")
    static let people: Set<UUID> = [UUID(), UUID(), UUID()]
    static let outsider = UUID()

    static let rows: [Row] = [
        Row(rule: "every member sees who is in the vault", action: .list, actors: everyone, refusal: nil),
        Row(rule: "the owner and admins invite, with any member's role", action: .invite(role: .admin), actors: managers, refusal: nil),
        Row(rule: "the owner and admins invite readers", action: .invite(role: .reader), actors: managers, refusal: nil),
        Row(rule: "writers and readers do not invite", action: .invite(role: .reader), actors: others, refusal: .adminOnly),
        Row(rule: "nobody is invited as owner", action: .invite(role: .owner), actors: managers, refusal: .owner),
        Row(rule: "an encrypted vault's invitation carries every generation", action: .invite(role: .writer, keys: [key1, key2]), actors: managers, keyIDs: ids, refusal: nil),
        Row(rule: "…in any order", action: .invite(role: .writer, keys: [key2, key1]), actors: managers, keyIDs: ids, refusal: nil),
        Row(rule: "an encrypted vault's invitation without a generation", action: .invite(role: .writer, keys: [key1]), actors: managers, keyIDs: ids, refusal: .keysMissing(generations: 2)),
        Row(rule: "an encrypted vault's invitation with no keys", action: .invite(role: .reader), actors: managers, keyIDs: ids, refusal: .keysMissing(generations: 2)),
        Row(
            rule: "an encrypted vault's invitation naming another key id", action: .invite(role: .writer, keys: [key1, .init(generation: 2, keyID: "ffff")]),
            actors: managers, keyIDs: ids, refusal: .keysMissing(generations: 2)),
        Row(rule: "an encrypted vault's invitation with a generation twice", action: .invite(role: .writer, keys: [key1, key2, key2]), actors: managers, keyIDs: ids, refusal: .keysMissing(generations: 2)),
        Row(rule: "an encrypted vault is not shared by code", action: .invite(role: .writer, byCode: true), actors: managers, keyIDs: ids, refusal: .encryptedByCode),
        Row(rule: "a plain vault's invitation carries no keys", action: .invite(role: .writer, byCode: true), actors: managers, refusal: nil),
        Row(rule: "writers do not invite to an encrypted vault either", action: .invite(role: .writer, keys: [key1, key2]), actors: others, keyIDs: ids, refusal: .adminOnly),
        Row(
            rule: "the owner and admins make the next generation for everyone in the vault", action: .rotate(key: key3, recipients: people, people: people), actors: managers,
            keyIDs: ids, refusal: nil),
        Row(rule: "writers and readers make no generation", action: .rotate(key: key3, recipients: people, people: people), actors: others, keyIDs: ids, refusal: .adminOnly),
        Row(rule: "a plain vault has no key to renew", action: .rotate(key: key3, recipients: people, people: people), actors: managers, refusal: .notEncrypted),
        Row(
            rule: "a generation that is not the next one", action: .rotate(key: .init(generation: 2, keyID: "cccccccccccccccc"), recipients: people, people: people),
            actors: managers, keyIDs: ids, refusal: .staleGeneration(current: 2)),
        Row(
            rule: "a generation reusing a key id", action: .rotate(key: .init(generation: 3, keyID: "aaaaaaaaaaaaaaaa"), recipients: people, people: people),
            actors: managers, keyIDs: ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"], refusal: .staleGeneration(current: 2)),
        Row(
            rule: "a key id that is not 16 lowercase hex digits", action: .rotate(key: .init(generation: 3, keyID: "0123456789ABCDEF"), recipients: people, people: people),
            actors: managers, keyIDs: ids, refusal: .malformedKeyID),
        Row(
            rule: "a generation that leaves someone out", action: .rotate(key: key3, recipients: Set(people.dropFirst()), people: people), actors: managers,
            keyIDs: ids, refusal: .recipientsDiffer),
        Row(
            rule: "a generation given to someone not in the vault (the removed member)", action: .rotate(key: key3, recipients: people.union([outsider]), people: people),
            actors: managers, keyIDs: ids, refusal: .recipientsDiffer),
        Row(rule: "the owner and admins list and revoke invitations", action: .manageInvitations, actors: managers, refusal: nil),
        Row(rule: "writers and readers do not see invitations", action: .manageInvitations, actors: others, refusal: .adminOnly),
        Row(rule: "the owner and admins change a member's role", action: .setRole(target: .writer, to: .reader), actors: managers, refusal: nil),
        Row(rule: "an admin may make another admin a writer", action: .setRole(target: .admin, to: .writer), actors: managers, refusal: nil),
        Row(rule: "writers and readers change no role, not even their own", action: .setRole(target: .reader, to: .writer), actors: others, refusal: .adminOnly),
        Row(rule: "the owner's role is not changed", action: .setRole(target: .owner, to: .admin), actors: managers, refusal: .owner),
        Row(rule: "nobody is made owner", action: .setRole(target: .admin, to: .owner), actors: managers, refusal: .owner),
        Row(rule: "the owner and admins remove members", action: .remove(target: .admin, isSelf: false), actors: managers, refusal: nil),
        Row(rule: "writers and readers remove nobody else", action: .remove(target: .reader, isSelf: false), actors: others, refusal: .adminOnly),
        Row(rule: "any member may leave", action: .remove(target: .reader, isSelf: true), actors: [.admin, .writer, .reader], refusal: nil),
        Row(rule: "the owner is not removed, and does not leave", action: .remove(target: .owner, isSelf: true), actors: [.owner], refusal: .owner),
        Row(rule: "an admin does not remove the owner", action: .remove(target: .owner, isSelf: false), actors: [.admin], refusal: .owner),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        for actor in row.actors {
            #expect(MemberAdmission.decide(row.action, actor: actor, keyIDs: row.keyIDs) == row.refusal, "\(actor)")
        }
    }

    @Test func refusalsNameTheVaultOnTheWire() {
        guard case .adminOnly(let message) = MemberAdmission.Refusal.adminOnly.serviceError(vaultName: "Handbook") else {
            Issue.record("admin_only expected")
            return
        }
        #expect(message.contains("'Handbook'"))
    }
}
