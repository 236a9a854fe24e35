public import Foundation
public import SyncProtocol

/// Sharing the folder's vault (issue 34): its members and invitations, and the invitations to
/// this account.
extension SyncEngine {
    /// The vault this folder syncs with, as the account reaches it.
    public func linkedVault() async throws -> VaultInfo {
        let linked = await linkedVaultID
        let vaults = try await vaults()
        guard let vault = Self.linked(linked, in: vaults) else {
            throw SyncEngineError.noSuchVault(linked?.uuidString.lowercased() ?? "default", known: vaults.map(\.qualifiedName))
        }
        return vault
    }

    /// Which of `vaults` a folder linked to `id` syncs with: that one, or (nil) the account's own
    /// `default` (a vault shared with it may be called `default` too).
    public static func linked(_ id: UUID?, in vaults: [VaultInfo]) -> VaultInfo? {
        vaults.first { id == nil ? $0.owner == nil && $0.name == "default" : $0.vaultID == id }
    }

    /// The vault's people, as the server lists them. Listing pins no safety number: the list is the
    /// server's, and a key renewal gives a key only to numbers this folder pinned (``RecipientTrust``).
    public func members() async throws -> VaultMemberList {
        let id = try await linkedVault().vaultID
        return try await session.run { [api] in try await api.members(of: id, accessToken: $0.accessToken) }
    }

    /// Invites an account by email, or (email nil) makes a code to hand to someone. In an
    /// encrypted vault, every generation of its key goes with the invitation, wrapped to the
    /// invitee's sharing keys: `safetyNumber`, when given, must be theirs.
    public func invite(email: String?, role: VaultRole, safetyNumber: String? = nil) async throws -> VaultInvitation {
        let id = try await linkedVault().vaultID
        var keys: [KeyGrant]?
        if remote.cipher != nil, let email {
            let person = try await session.run { [api] in try await api.personKeys(email: email, accessToken: $0.accessToken) }
            try await takeNewGenerations()
            keys = try await grants(to: person, in: id, expectedNumber: safetyNumber)
        }
        let request = InviteRequest(email: email, code: email == nil ? true : nil, role: role, keys: keys)
        return try await session.run { [api] in try await api.invite(request, to: id, accessToken: $0.accessToken) }
    }

    public func revokeInvitation(_ invitationID: UUID) async throws {
        let id = try await linkedVault().vaultID
        try await session.run { [api] in try await api.revokeInvitation(invitationID, of: id, accessToken: $0.accessToken) }
    }

    public func setRole(_ role: VaultRole, of memberID: UUID) async throws -> VaultMember {
        let id = try await linkedVault().vaultID
        return try await session.run { [api] in try await api.setRole(role, of: memberID, in: id, accessToken: $0.accessToken) }
    }

    /// What became of an encrypted vault's key after a removal.
    public enum KeyRenewal: Sendable, Equatable {
        /// Generation `generation` was made, for everyone who stays.
        case renewed(generation: Int)
        /// Not now (why): the removal stands, and the next sync of the owner's or an admin's
        /// device renews the key.
        case deferred(String)
    }

    /// Takes a member out of the vault; this account's own id leaves it. In an encrypted vault
    /// the remover's device then renews the key (a new generation the removed member never gets).
    /// - Returns: nil for a plain vault or leaving; else what became of the key.
    @discardableResult
    public func removeMember(_ memberID: UUID) async throws -> KeyRenewal? {
        let id = try await linkedVault().vaultID
        try await session.run { [api] in try await api.removeMember(memberID, from: id, accessToken: $0.accessToken) }
        guard remote.cipher != nil, memberID != (await userID) else { return nil }
        do {
            return .renewed(generation: try await rotateVaultKey())
        } catch {
            return .deferred("\(error)")
        }
    }

    /// The account's user id.
    public var userID: UUID? {
        get async { try? await store.meta(.userID).flatMap(UUID.init(uuidString:)) }
    }

    public func invitations() async throws -> [VaultInvitation] {
        try await session.run { [api] in try await api.invitations(accessToken: $0.accessToken) }
    }

    public func acceptInvitation(_ invitationID: UUID) async throws -> VaultInfo {
        try await session.run { [api] in try await api.acceptInvitation(invitationID, accessToken: $0.accessToken) }
    }

    public func redeemInvitation(code: String) async throws -> VaultInfo {
        try await session.run { [api] in try await api.redeemInvitation(code: code, accessToken: $0.accessToken) }
    }

    public func declineInvitation(_ invitationID: UUID) async throws {
        try await session.run { [api] in try await api.declineInvitation(invitationID, accessToken: $0.accessToken) }
    }
}
