@testable import SyncServer
import SyncProtocol
import Testing

/// Who may change a shared vault's members, one row per rule: the action, the actor's role,
/// whether the vault is encrypted, and the refusal (nil: allowed).
@Suite struct MemberAdmissionTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let rule: String
        let action: MemberAdmission.Action
        let actors: [VaultRole]
        var encrypted = false
        let refusal: MemberAdmission.Refusal?
        var testDescription: String { rule }
    }

    static let managers: [VaultRole] = [.owner, .admin]
    static let others: [VaultRole] = [.writer, .reader]
    static let everyone = VaultRole.allCases

    static let rows: [Row] = [
        Row(rule: "every member sees who is in the vault", action: .list, actors: everyone, refusal: nil),
        Row(rule: "the owner and admins invite, with any member's role", action: .invite(role: .admin), actors: managers, refusal: nil),
        Row(rule: "the owner and admins invite readers", action: .invite(role: .reader), actors: managers, refusal: nil),
        Row(rule: "writers and readers do not invite", action: .invite(role: .reader), actors: others, refusal: .adminOnly),
        Row(rule: "nobody is invited as owner", action: .invite(role: .owner), actors: managers, refusal: .owner),
        Row(rule: "an encrypted vault is not shared yet", action: .invite(role: .writer), actors: managers, encrypted: true, refusal: .encrypted),
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
            #expect(MemberAdmission.decide(row.action, actor: actor, encrypted: row.encrypted) == row.refusal, "\(actor)")
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
