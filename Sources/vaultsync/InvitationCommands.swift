import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync invitations [list|accept|decline]`: invitations to this account's vaults.
struct Invitations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, accept or decline invitations to other people's vaults.",
        discussion: "Accepting makes the vault yours to sync; link a folder to it with 'vaultsync init DIR --vault OWNER/NAME'.",
        subcommands: [InvitationsList.self, InvitationsAccept.self, InvitationsDecline.self], defaultSubcommand: InvitationsList.self)
}

struct InvitationsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the invitations to your account not yet answered.")
    @Option(help: "A vault folder linked to your account (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let invitations = try await SyncEngine(root: vaultURL(vault)).invitations()
        if json { return try printJSON(InvitationList(invitations: invitations)) }
        if invitations.isEmpty { print("no invitations") }
        for invitation in invitations {
            print("\(invitation.invitationID.uuidString.lowercased().prefix(8))  '\(invitation.owner)/\(invitation.vaultName)' as \(invitation.role.rawValue), from \(invitation.invitedBy ?? "a former member"), until \(WireDate.format(invitation.expiresAt))")
        }
    }
}

struct InvitationsAccept: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "accept", abstract: "Accept an invitation (by its id) or redeem an invitation code.")
    @Argument(help: "The invitation's id or the start of it ('vaultsync invitations' lists them).") var invitation: String?
    @Option(help: "An invitation code someone gave you, instead of an id.") var code: String?
    @Option(help: "A vault folder linked to your account (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if (invitation == nil) == (code == nil) { throw ValidationError("give the invitation's ID or --code CODE (not both)") }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let joined: VaultInfo
        if let code {
            joined = try await engine.redeemInvitation(code: code)
        } else {
            joined = try await engine.acceptInvitation(try pickInvitation(invitation ?? "", from: try await engine.invitations()).invitationID)
        }
        if json { return try printJSON(joined) }
        let status = try await VaultStatus.read(root: vaultURL(vault))
        print("you are a \(joined.role?.rawValue ?? "member") of '\(joined.qualifiedName)'; link a folder to it with 'vaultsync init DIR --server \(status.server ?? "SERVER") --email \(status.email ?? "EMAIL") --vault \(joined.qualifiedName)'")
    }
}

struct InvitationsDecline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decline", abstract: "Decline an invitation.")
    @Argument(help: "The invitation's id or the start of it.") var invitation: String
    @Option(help: "A vault folder linked to your account (default: the current folder).") var vault: String?

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let chosen = try pickInvitation(invitation, from: try await engine.invitations())
        try await engine.declineInvitation(chosen.invitationID)
        print("declined the invitation to '\(chosen.owner)/\(chosen.vaultName)'")
    }
}
