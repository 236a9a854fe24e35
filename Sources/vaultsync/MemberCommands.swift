import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync members [list|invite|set-role|remove|leave|revoke-invitation]`: who shares the
/// folder's vault, and with which role.
struct Members: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Share the folder's vault: list its members, invite people, change roles, remove members or leave.",
        discussion: """
            Roles: reader (syncs, never writes), writer (everything a sync does), admin (also invites, changes roles \
            and removes members). The owner's account keeps the vault; only the owner and admins manage members. \
            Someone removed keeps the files their devices already synced (docs/sharing.md).
            """,
        subcommands: [MembersList.self, MembersInvite.self, MembersSetRole.self, MembersRemove.self, MembersLeave.self, MembersRevokeInvitation.self, MembersConfirm.self],
        defaultSubcommand: MembersList.self)
}

/// A role a member can be given, as the command line takes it (nobody is made owner).
enum RoleArgument: String, ExpressibleByArgument, CaseIterable {
    case reader, writer, admin

    var role: VaultRole { VaultRole(rawValue: rawValue) ?? .reader }
}

struct MembersList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the vault's owner, members and (for admins) open invitations.")
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    /// The list with each person's safety number and how it stands on this folder.
    struct Output: Encodable {
        struct Person: Encodable {
            let member: VaultMember
            let safetyNumber: String?
            let numberChanged: Bool
            let numberStanding: PinnedNumber?
            enum CodingKeys: String, CodingKey {
                case safetyNumber = "safety_number"
                case numberChanged = "number_changed"
                case numberStanding = "number_standing"
            }
            func encode(to encoder: any Encoder) throws {
                try member.encode(to: encoder)
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeIfPresent(safetyNumber, forKey: .safetyNumber)
                try container.encode(numberChanged, forKey: .numberChanged)
                try container.encodeIfPresent(numberStanding?.rawValue, forKey: .numberStanding)
            }
        }
        let vaultID: UUID
        let vaultName: String
        let members: [Person]
        let invitations: [VaultInvitation]?
        enum CodingKeys: String, CodingKey {
            case members, invitations
            case vaultID = "vault_id"
            case vaultName = "vault_name"
        }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let list = try await engine.members()
        let standing = try await engine.numberStanding(list.members)
        if json {
            let people = list.members.map {
                Output.Person(member: $0, safetyNumber: $0.safetyNumber, numberChanged: standing[$0.userID] == .changed, numberStanding: standing[$0.userID])
            }
            return try printJSON(Output(vaultID: list.vaultID, vaultName: list.vaultName, members: people, invitations: list.invitations))
        }
        print("vault '\(list.vaultName)' (\(list.vaultID.uuidString.lowercased()))")
        for member in list.members {
            print("  \(member.email)  \(member.role.rawValue)\(member.addedAt.map { "  since \(WireDate.format($0))" } ?? "")  \(member.userID.uuidString.lowercased().prefix(8))")
            if let number = member.safetyNumber {
                let note = switch standing[member.userID] {
                case .changed?: "  CHANGED since this folder pinned it: compare it with them, then 'vaultsync members confirm \(member.email)'"
                case .notPinned?: "  not pinned on this folder: compare it with them, then 'vaultsync members confirm \(member.email)'"
                default: ""
                }
                print("    safety number \(number)\(note)")
            }
        }
        for invitation in list.invitations ?? [] {
            print("  invited: \(invitation.email ?? "by code")  \(invitation.role.rawValue)  until \(WireDate.format(invitation.expiresAt))  \(invitation.invitationID.uuidString.lowercased().prefix(8))")
        }
    }
}

struct MembersInvite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite", abstract: "Invite an account by its email, or make an invitation code to hand to someone.",
        discussion: "The invited person accepts with 'vaultsync invitations accept', or links a folder with 'vaultsync init DIR --vault OWNER/NAME' (an invitation by email) or 'vaultsync init DIR --join CODE' (a code). An invitation waits 7 days.")
    @Argument(help: "The email of the account to invite (omit with --code).") var email: String?
    @Flag(help: "Make a code instead: whoever you give it to joins (once).") var code = false
    @Option(help: "Their role: reader, writer or admin.") var role: RoleArgument
    @Option(help: "In an encrypted vault: the safety number you compared with them ('vaultsync keys show' on their side); another one refuses.")
    var safetyNumber: String?
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if (email == nil) == !code { throw ValidationError("give an EMAIL or --code (not both)") }
        if code && safetyNumber != nil { throw ValidationError("--safety-number goes with an EMAIL: a code names nobody") }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let invitation = try await engine.invite(email: email, role: role.role, safetyNumber: safetyNumber)
        if json { return try printJSON(invitation) }
        let name = "\(invitation.owner)/\(invitation.vaultName)"
        let server = try await VaultStatus.read(root: vaultURL(vault)).server ?? "SERVER"
        if let code = invitation.code {
            print("""
                invitation code for '\(name)' as \(role.rawValue): \(code)
                It is shown only now and works once, until \(WireDate.format(invitation.expiresAt)). The person links a folder with:
                  vaultsync init DIR --server \(server) --email THEIR_EMAIL --join \(code)
                """)
        } else {
            print("invited \(invitation.email ?? "") to '\(name)' as \(role.rawValue) (until \(WireDate.format(invitation.expiresAt))); they link a folder with 'vaultsync init DIR --server \(server) --email \(invitation.email ?? "EMAIL") --vault \(name)'")
        }
    }
}

/// Which member a command-line argument names: their email (any case), user id, or the start of it.
func pickMember(_ text: String, from members: [VaultMember]) throws -> VaultMember {
    let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
    let matches = members.filter {
        $0.email.lowercased() == wanted || $0.userID.uuidString.lowercased() == wanted || (wanted.count >= 4 && $0.userID.uuidString.lowercased().hasPrefix(wanted))
    }
    guard matches.count == 1 else {
        let known = members.map { "\($0.email) (\($0.role.rawValue))" }.joined(separator: ", ")
        throw CLIRefusal(matches.isEmpty ? "no member of the vault is '\(text)'; its members: \(known)" : "'\(text)' names \(matches.count) members; give their email")
    }
    return matches[0]
}

struct MembersSetRole: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set-role", abstract: "Give a member another role (owner and admins).")
    @Argument(help: "The member: their email or user id.") var member: String
    @Argument(help: "The new role: reader, writer or admin.") var role: RoleArgument
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let member = try pickMember(member, from: try await engine.members().members)
        let changed = try await engine.setRole(role.role, of: member.userID)
        if json { return try printJSON(changed) }
        print("\(changed.email) is now \(changed.role.rawValue)")
    }
}

struct MembersRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Take a member out of the vault (owner and admins).",
        discussion: "Their devices stop syncing the vault at once; the files those devices hold stay theirs.")
    @Argument(help: "The member: their email or user id.") var member: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let member = try pickMember(member, from: try await engine.members().members)
        let renewal = try await engine.removeMember(member.userID)
        print("removed \(member.email) from the vault; their devices stop syncing it and keep what they hold")
        switch renewal {
        case .renewed(let generation):
            print("the vault's key was renewed (generation \(generation)): what is written from now on is sealed under a key they never had")
        case .deferred(let why):
            print("the vault's key was not renewed yet (\(why)); the next sync of your device or an admin's renews it, before anything new is sealed")
        case nil:
            break
        }
    }
}

struct MembersLeave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave", abstract: "Leave a vault shared with you.",
        discussion: "This folder stops syncing it and keeps its files. The owner cannot leave: they delete the vault ('vaultsync vaults delete').")
    @Option(help: "The vault folder (default: the current folder).") var vault: String?

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        guard let me = await engine.userID else { throw CLIRefusal("this folder is not linked to an account") }
        let name = try await engine.linkedVault().qualifiedName
        try await engine.removeMember(me)
        print("you left '\(name)'; \(vaultURL(vault).path) keeps its files and no longer syncs")
    }
}

struct MembersRevokeInvitation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke-invitation", abstract: "Revoke an invitation not yet answered (owner and admins).")
    @Argument(help: "The invitation's id, or the start of it ('vaultsync members' lists them).") var invitation: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let open = try await engine.members().invitations ?? []
        let chosen = try pickInvitation(invitation, from: open)
        try await engine.revokeInvitation(chosen.invitationID)
        print("revoked the invitation of \(chosen.email ?? "a code") to '\(chosen.owner)/\(chosen.vaultName)'")
    }
}

/// Which invitation a command-line argument names: its id or the start of it (4 characters at least).
func pickInvitation(_ text: String, from invitations: [VaultInvitation]) throws -> VaultInvitation {
    let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
    let matches = invitations.filter { $0.invitationID.uuidString.lowercased() == wanted || (wanted.count >= 4 && $0.invitationID.uuidString.lowercased().hasPrefix(wanted)) }
    guard matches.count == 1 else {
        throw CLIRefusal(matches.isEmpty ? "no open invitation has an id starting with '\(text)' (\(invitations.count) open)" : "'\(text)' names \(matches.count) invitations; give more of the id")
    }
    return matches[0]
}

struct MembersConfirm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm", abstract: "Pin a member's safety number as the one you compared with them.",
        discussion: "A number that changed is shown as CHANGED by 'vaultsync members', and one this folder never pinned as 'not pinned'. Keys that person signs are not taken (once changed), and a renewed vault key is not given to them, until you compare the number with them (in person, on a call) and confirm it here.")
    @Argument(help: "The member: their email or user id.") var member: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let member = try pickMember(member, from: try await engine.members().members)
        let number = try await engine.confirmNumber(of: member)
        print("\(member.email)'s safety number \(number) is the one this folder trusts now")
    }
}
