public import Foundation
public import SyncProtocol

/// The keys of end-to-end encrypted shared vaults (`docs/protocol.md`, "Sharing keys").
extension SyncAPI {
    /// The account's sealed sharing keys; `404 not_found` before they are made.
    public func accountKeys(accessToken: String) async throws -> AccountKeys {
        try await call("GET", "account/keys", body: Optional<InviteRequest>.none, headers: bearer(accessToken))
    }

    public func putAccountKeys(_ request: PutAccountKeysRequest, accessToken: String) async throws -> AccountKeys {
        try await call("PUT", "account/keys", body: request, headers: bearer(accessToken))
    }

    /// The public sharing keys of the account with `email`.
    public func personKeys(email: String, accessToken: String) async throws -> PersonKeys {
        try await call("GET", "sharing-keys", query: [URLQueryItem(name: "email", value: email)], body: Optional<InviteRequest>.none, headers: bearer(accessToken))
    }

    public func keyList(of vaultID: UUID, accessToken: String) async throws -> VaultKeyList {
        try await call("GET", "vaults/\(vaultID.uuidString.lowercased())/keys", body: Optional<InviteRequest>.none, headers: bearer(accessToken))
    }

    public func rotateKey(_ request: RotateKeyRequest, of vaultID: UUID, accessToken: String) async throws -> VaultKeyList {
        try await call("POST", "vaults/\(vaultID.uuidString.lowercased())/keys", body: request, headers: bearer(accessToken))
    }
}

extension SyncAPI {
    /// `POST /vault/rekey`: renames every live path of the encrypted vault as one change.
    public func rekey(_ request: RekeyRequest, session: VaultSession) async throws -> RekeyResponse {
        try await call("POST", "vault/rekey", body: request, headers: headers(session))
    }
}
