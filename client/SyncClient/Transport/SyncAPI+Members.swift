public import Foundation
public import SyncProtocol

/// A shared vault's members and invitations (`/vaults/{id}/members`, `/vaults/{id}/invitations`,
/// `/invitations`).
extension SyncAPI {
    public func members(of vaultID: UUID, accessToken: String) async throws -> VaultMemberList {
        try await call("GET", "vaults/\(vaultID.uuidString.lowercased())/members", body: Optional<InviteRequest>.none, headers: bearer(accessToken))
    }

    public func invite(_ request: InviteRequest, to vaultID: UUID, accessToken: String) async throws -> VaultInvitation {
        try await call("POST", "vaults/\(vaultID.uuidString.lowercased())/invitations", body: request, headers: bearer(accessToken))
    }

    public func revokeInvitation(_ invitationID: UUID, of vaultID: UUID, accessToken: String) async throws {
        let _: Empty = try await call(
            "DELETE", "vaults/\(vaultID.uuidString.lowercased())/invitations/\(invitationID.uuidString.lowercased())", body: Optional<InviteRequest>.none,
            headers: bearer(accessToken))
    }

    public func setRole(_ role: VaultRole, of memberID: UUID, in vaultID: UUID, accessToken: String) async throws -> VaultMember {
        try await call("PATCH", "vaults/\(vaultID.uuidString.lowercased())/members/\(memberID.uuidString.lowercased())", body: SetRoleRequest(role: role), headers: bearer(accessToken))
    }

    /// Takes a member out of the vault; the caller's own id leaves it.
    public func removeMember(_ memberID: UUID, from vaultID: UUID, accessToken: String) async throws {
        let _: Empty = try await call(
            "DELETE", "vaults/\(vaultID.uuidString.lowercased())/members/\(memberID.uuidString.lowercased())", body: Optional<InviteRequest>.none,
            headers: bearer(accessToken))
    }

    public func invitations(accessToken: String) async throws -> [VaultInvitation] {
        let list: InvitationList = try await call("GET", "invitations", body: Optional<InviteRequest>.none, headers: bearer(accessToken))
        return list.invitations
    }

    public func acceptInvitation(_ invitationID: UUID, accessToken: String) async throws -> VaultInfo {
        try await call("POST", "invitations/\(invitationID.uuidString.lowercased())/accept", body: Optional<InviteRequest>.none, headers: bearer(accessToken))
    }

    public func redeemInvitation(code: String, accessToken: String) async throws -> VaultInfo {
        try await call("POST", "invitations/redeem", body: RedeemInvitationRequest(code: code), headers: bearer(accessToken))
    }

    public func declineInvitation(_ invitationID: UUID, accessToken: String) async throws {
        let _: Empty = try await call("POST", "invitations/\(invitationID.uuidString.lowercased())/decline", body: Optional<InviteRequest>.none, headers: bearer(accessToken))
    }

    func bearer(_ accessToken: String) -> [String: String] { ["Authorization": "Bearer \(accessToken)"] }
}
