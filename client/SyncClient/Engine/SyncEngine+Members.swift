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

    public func members() async throws -> VaultMemberList {
        let id = try await linkedVault().vaultID
        return try await session.run { [api] in try await api.members(of: id, accessToken: $0.accessToken) }
    }

    /// Invites an account by email, or (email nil) makes a code to hand to someone.
    public func invite(email: String?, role: VaultRole) async throws -> VaultInvitation {
        let id = try await linkedVault().vaultID
        let request = InviteRequest(email: email, code: email == nil ? true : nil, role: role)
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

    /// Takes a member out of the vault; this account's own id leaves it.
    public func removeMember(_ memberID: UUID) async throws {
        let id = try await linkedVault().vaultID
        try await session.run { [api] in try await api.removeMember(memberID, from: id, accessToken: $0.accessToken) }
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
