import Foundation
import Postgres
import SyncProtocol

/// A shared vault's members and invitations (issue 34): each change decided by
/// ``MemberAdmission`` and made in one transaction. A vault the caller does not reach answers
/// `404`, as every vault route does for a stranger.
struct MemberService: Sendable {
    let db: PostgresPool
    let now: @Sendable () -> Date
    /// The smallest scrypt cost taken for sealed sharing keys (as for a vault's key envelope).
    var minimumScryptLogN = 15

    /// How long an invitation waits for its answer.
    static let invitationLifetime: TimeInterval = OneTimeCode.invitationLifetime

    /// Who is in the vault; its invitations too for the owner and admins.
    func list(userID: UUID, vaultID: UUID) async throws -> VaultMemberList {
        let now = now()
        return try await db.withConnection { db in
            let vault = try Self.reach(db, userID: userID, vaultID: vaultID)
            let manages = MemberAdmission.decide(.manageInvitations, actor: vault.role, keyIDs: []) == nil
            return VaultMemberList(
                vaultID: vault.id, vaultName: vault.name, members: try VaultMemberQueries.members(db, vaultID: vault.id),
                invitations: manages ? try VaultInvitationQueries.sent(db, vaultID: vault.id, now: now) : nil)
        }
    }

    /// Invites the account with the request's email, or makes a code (returned once).
    /// - Throws: ``ServiceError/adminOnly(_:)``, ``ServiceError/alreadyMember(_:)``,
    ///   ``ServiceError/notFound(_:)`` (no account has that email), ``ServiceError/invalidRequest(_:)``.
    func invite(userID: UUID, vaultID: UUID, _ request: InviteRequest) async throws -> VaultInvitation {
        let email = request.email?.trimmingCharacters(in: .whitespaces)
        guard (email != nil) != (request.code == true) else {
            throw ServiceError.invalidRequest("invite either an account by its email, or with code: true whoever you give the code to; not both")
        }
        let code = request.code == true ? OneTimeCode.generate() : nil
        let now = now()
        var made = try await db.transaction { tx in
            let vault = try Self.reach(tx, userID: userID, vaultID: vaultID)
            if vault.encrypted { _ = try FileStateQueries.lockVault(tx, vaultID: vault.id) }  // no new generation meanwhile
            let keyIDs = vault.encrypted ? try SharingKeyQueries.keyIDs(tx, vaultID: vault.id) : []
            let grants = request.keys ?? []
            let action = MemberAdmission.Action.invite(
                role: request.role, byCode: code != nil, keys: grants.map { MemberAdmission.KeyName(generation: $0.generation, keyID: $0.keyID) })
            if let refusal = MemberAdmission.decide(action, actor: vault.role, keyIDs: keyIDs) {
                throw refusal.serviceError(vaultName: vault.name)
            }
            let invitee: VaultInvitationQueries.Invitee
            if let email {
                guard let account = try AccountQueries.userID(tx, email: email) else {
                    throw ServiceError.notFound("no account on this server has the email '\(email.prefix(120))': they sign up first, or you invite with a code")
                }
                if try account == vault.ownerID || VaultMemberQueries.role(tx, vaultID: vault.id, userID: account) != nil {
                    throw ServiceError.alreadyMember("'\(email.prefix(120))' is in '\(vault.name)' already")
                }
                invitee = .account(account)
                if !keyIDs.isEmpty {
                    try Self.give(tx, grants, to: account, in: vault, by: userID, now: now)
                }
            } else {
                invitee = .code(hash: try Self.codeHash(code ?? ""))
            }
            return try VaultInvitationQueries.insert(
                tx, id: UUID(), vaultID: vault.id, role: request.role, invitee: invitee, invitedBy: userID, now: now,
                expires: now.addingTimeInterval(Self.invitationLifetime))
        }
        made.code = code
        return made
    }

    /// Revokes one of the vault's invitations.
    func revokeInvitation(userID: UUID, vaultID: UUID, invitationID: UUID) async throws {
        try await db.transaction { tx in
            let vault = try Self.reach(tx, userID: userID, vaultID: vaultID)
            if let refusal = MemberAdmission.decide(.manageInvitations, actor: vault.role, keyIDs: []) {
                throw refusal.serviceError(vaultName: vault.name)
            }
            guard let revoked = try VaultInvitationQueries.revoke(tx, vaultID: vault.id, id: invitationID) else {
                throw ServiceError.notFound("'\(vault.name)' has no invitation \(invitationID.uuidString.lowercased()) (answered or revoked already?)")
            }
            if let invitee = revoked.invitee { try SharingKeyQueries.forget(tx, vaultID: vault.id, userID: invitee) }
        }
    }

    /// Gives a member another role.
    func setRole(userID: UUID, vaultID: UUID, memberID: UUID, _ request: SetRoleRequest) async throws -> VaultMember {
        try await db.transaction { tx in
            let vault = try Self.reach(tx, userID: userID, vaultID: vaultID)
            let target = try Self.role(tx, of: memberID, in: vault)
            if let refusal = MemberAdmission.decide(.setRole(target: target, to: request.role), actor: vault.role, keyIDs: []) {
                throw refusal.serviceError(vaultName: vault.name)
            }
            _ = try VaultMemberQueries.setRole(tx, vaultID: vault.id, userID: memberID, role: request.role)
            guard let member = try VaultMemberQueries.members(tx, vaultID: vault.id).first(where: { $0.userID == memberID }) else { throw Self.noMember(memberID, vault) }
            return member
        }
    }

    /// Takes a member out of the vault, or (`memberID` the caller) leaves it. Their devices' feed
    /// connections to it close at once and their next request for it gets `410 membership_ended`;
    /// what they synced stays on their devices.
    func remove(userID: UUID, vaultID: UUID, memberID: UUID) async throws {
        let now = now()
        try await db.transaction { tx in
            let vault = try Self.reach(tx, userID: userID, vaultID: vaultID)
            let target = try Self.role(tx, of: memberID, in: vault)
            let leaving = memberID == userID
            if let refusal = MemberAdmission.decide(.remove(target: target, isSelf: leaving), actor: vault.role, keyIDs: []) {
                throw refusal.serviceError(vaultName: vault.name)
            }
            _ = try VaultMemberQueries.remove(tx, vaultID: vault.id, userID: memberID, reason: leaving ? .left : .removed, now: now)
            try SharingKeyQueries.forget(tx, vaultID: vault.id, userID: memberID)
            try ChangeFeedQueries.announceMembershipEnd(tx, vaultID: vault.id, userID: memberID)
        }
    }

    // MARK: the invitee's side

    /// The invitations to the caller's account.
    func received(userID: UUID) async throws -> InvitationList {
        let now = now()
        return InvitationList(invitations: try await db.withConnection { try VaultInvitationQueries.received($0, userID: userID, now: now) })
    }

    /// Accepts an invitation to the caller's account, or redeems a code: the caller is a member
    /// with the role it offers. Returns the vault as the caller now reaches it.
    func accept(userID: UUID, _ which: VaultInvitationQueries.Taken) async throws -> VaultInfo {
        let now = now()
        return try await db.transaction { tx in
            guard let taken = try VaultInvitationQueries.take(tx, which, userID: userID, now: now) else {
                throw ServiceError.notFound("no such invitation for this account: it was answered, revoked or expired (ask for a new one)")
            }
            if try VaultQueries.get(tx, userID: userID, id: taken.vaultID) != nil || VaultMemberQueries.role(tx, vaultID: taken.vaultID, userID: userID) != nil {
                // Thrown, so the invitation stays for someone else (a code) or to be declined.
                throw ServiceError.alreadyMember("you are in that vault already")
            }
            _ = try VaultMemberQueries.add(tx, vaultID: taken.vaultID, userID: userID, role: taken.role, addedBy: taken.invitedBy, now: now)
            guard let info = try VaultQueries.reached(tx, userID: userID, id: taken.vaultID) else { throw ServiceError.notFound("the vault is gone") }
            return info
        }
    }

    /// Declines an invitation to the caller's account.
    func decline(userID: UUID, invitationID: UUID) async throws {
        let now = now()
        try await db.transaction { tx in
            guard let taken = try VaultInvitationQueries.take(tx, .id(invitationID), userID: userID, now: now) else {
                throw ServiceError.notFound("no such invitation for this account: it was answered, revoked or expired")
            }
            try SharingKeyQueries.forget(tx, vaultID: taken.vaultID, userID: userID)
        }
    }

    /// The hash an invitation code is kept as.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for text that cannot be a code.
    static func codeHash(_ code: String) throws -> String {
        guard let normalized = OneTimeCode.normalized(code) else {
            throw ServiceError.invalidRequest("'\(code.prefix(40))' is not an invitation code (12 letters and digits, as 7K3Q-M9XD-2HTA)")
        }
        return OneTimeCode.hash(normalized)
    }

    // MARK: helpers

    static func reach(_ db: PostgresConnection, userID: UUID, vaultID: UUID) throws -> AccountQueries.Reachable {
        guard let vault = try AccountQueries.vault(db, userID: userID, nameOrID: vaultID.uuidString) else {
            throw ServiceError.notFound("no vault \(vaultID.uuidString.lowercased()) on this account")
        }
        return vault
    }

    static func role(_ db: PostgresConnection, of memberID: UUID, in vault: AccountQueries.Reachable) throws -> VaultRole {
        if memberID == vault.ownerID { return .owner }
        guard let role = try VaultMemberQueries.role(db, vaultID: vault.id, userID: memberID) else { throw noMember(memberID, vault) }
        return role
    }

    private static func noMember(_ memberID: UUID, _ vault: AccountQueries.Reachable) -> ServiceError {
        .notFound("'\(vault.name)' has no member \(memberID.uuidString.lowercased())")
    }
}
