public import SyncProtocol

extension SyncEngine {
    /// Changes the account's password: the current one proves it is the owner. Every other
    /// session of the account ends (other devices sign in again with the new one); this one goes on.
    public func changePassword(current: String, new: String) async throws {
        try await session.run { [api] in try await api.changePassword(ChangePasswordRequest(currentPassword: current, newPassword: new), accessToken: $0.accessToken) }
    }

    /// Deletes the account with every vault, version and device on the server. Only once the
    /// server confirms that all of it is gone are this folder's credentials removed; the folder's
    /// files stay as they are (and its link record, so `status` can say what happened).
    /// - Parameter proof: the password, or a fresh ID token of a provider linked to the account.
    public func deleteAccount(proof: DeleteAccountRequest) async throws -> AccountDeletion {
        let deleted = try await session.run { [api] in try await api.deleteAccount(proof, accessToken: $0.accessToken) }
        try CredentialStore(stateFolder: stateFolder).remove()
        return deleted
    }

    /// The ways the account signs in.
    public func identities() async throws -> [LinkedIdentity] {
        try await session.run { [api] in try await api.identities(accessToken: $0.accessToken).identities }
    }

    /// Links another provider's identity, proved by its ID token, to the account.
    public func linkIdentity(provider: String, idToken: String, nonce: String? = nil) async throws -> [LinkedIdentity] {
        try await session.run { [api] in
            try await api.linkIdentity(LinkIdentityRequest(provider: provider, idToken: idToken, nonce: nonce), accessToken: $0.accessToken).identities
        }
    }

    /// Unlinks a provider (never the account's last way to sign in).
    public func unlinkIdentity(provider: String) async throws -> [LinkedIdentity] {
        try await session.run { [api] in try await api.unlinkIdentity(provider: provider, accessToken: $0.accessToken).identities }
    }
}
