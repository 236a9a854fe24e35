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
    public func deleteAccount(password: String) async throws -> AccountDeletion {
        let deleted = try await session.run { [api] in try await api.deleteAccount(password: password, accessToken: $0.accessToken) }
        try CredentialStore(stateFolder: stateFolder).remove()
        return deleted
    }
}
