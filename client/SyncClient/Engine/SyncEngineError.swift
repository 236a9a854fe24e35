import Foundation
public import SyncProtocol

/// Why a vault cannot be synced at all.
public enum SyncEngineError: Error, CustomStringConvertible {
    case notLinked(String)
    /// Linked, but signed out: `vaultsync login` signs it back in.
    case signedOut(String)
    /// `init` or `login` on a folder linked to another server.
    case linkedElsewhere(String, server: String)
    /// `init` on a folder inside a linked folder (`inside: true`) or around one: the two vaults
    /// would sync into each other.
    case nestedVault(String, other: String, inside: Bool)
    /// `init` or `login` as another account than the one the folder syncs with.
    case otherAccount(String)
    /// `login` on a folder linked before this client recorded the account's email.
    case emailNeeded(String)
    /// `init --vault NAME` naming no vault of the account (without `--create`); the names it has.
    case noSuchVault(String, known: [String])
    /// `init --vault NAME` on a folder that syncs with another vault of the account.
    case otherVault(String, vault: String)
    /// The folder (or its `.vaultsync`) is no longer there: unmounted, moved or deleted.
    case folderGone(String)
    /// The folder's `.vaultsync` is not the one this process opened (the folder was replaced).
    case folderReplaced(String)
    /// The server answers for another vault than the one this folder synced with.
    case otherServerVault(String)
    /// The vault is encrypted and this folder has not its key (linked before it was encrypted).
    case encryptedVault(String)
    /// The vault the folder syncs with was deleted on the server (`reason`: the server's words;
    /// `relink`: the command that links the folder to a new vault once `.vaultsync` is moved away).
    case vaultDeleted(String, reason: String, relink: String)
    /// The folder syncs with a vault shared with the account, and the account is no longer a
    /// member of it (removed, or left; `reason`: the server's words).
    case membershipEnded(String, reason: String)
    /// This folder holds a vault key, but the server says the vault is not encrypted.
    case notEncrypted(String)
    /// `passphrase change` on a folder that syncs a plain vault.
    case notEncryptedHere(String)
    /// The passphrase or recovery key given does not open the vault's key (or its envelope cannot be read).
    case keyNotOpened(String, reason: String)
    /// `passphrase restore` naming a revision the vault's key envelope never had (or the current one).
    case noSuchKeyRevision(Int)
    /// The account's sharing keys are missing, not on this device, or a key given to it is not
    /// trusted (`docs/sharing.md`): what to do is in the message.
    case sharingKeys(String)
    case noConflict(VaultPath)
    case serverMovedOn(VaultPath)
    /// An import with history into an encrypted vault (not built: its devices would seal each version).
    case importEncrypted(String)
    public var description: String {
        switch self {
        case .notLinked(let path): "'\(path)' is not linked to a server: run 'vaultsync init' there first"
        case .signedOut(let path): "'\(path)' is signed out: run 'vaultsync login \(path)' to sign it back in"
        case .linkedElsewhere(let path, let server): "'\(path)' is linked to \(server); use that server, or link an empty folder"
        case .nestedVault(let path, let other, let inside):
            inside
                ? "'\(path)' is inside '\(other)', which is linked already: its files would sync with that vault too. Link a folder outside it"
                : "'\(path)' holds '\(other)', which is linked already: that folder's files would sync with this vault too. Link a folder that holds no linked folder"
        case .otherAccount(let path): "'\(path)' syncs another account's vault; sign in as that account, or link an empty folder"
        case .emailNeeded(let path): "'\(path)' does not record its account's email: pass --email"
        case .noSuchVault(let name, let known):
            "the account reaches no vault '\(name)' (its vaults: \(known.joined(separator: ", ")); a vault shared with you is named OWNER/NAME); add --create to create one of your own"
        case .otherVault(let path, let vault): "'\(path)' syncs with the vault '\(vault)' of this account; link an empty folder to another vault"
        case .folderGone(let path):
            "'\(path)' or its .vaultsync folder is gone (unmounted, moved or deleted?); nothing was synced, and nothing is deleted anywhere because of it. Mount or put the folder back, or link a new folder with 'vaultsync init'"
        case .folderReplaced(let path):
            "'\(path)' was replaced by another copy while this process had it open; nothing was synced. Start vaultsync again on the folder"
        case .otherServerVault(let path):
            "the server answers for another vault than the one '\(path)' synced with (was its database replaced or restored?); nothing was synced. Link an empty folder to sync with it"
        case .encryptedVault(let path):
            "'\(path)' is linked to an encrypted vault, and this folder does not hold its key; nothing was synced or written. Run 'vaultsync init' on it again to give the passphrase or the recovery key"
        case .vaultDeleted(let path, let reason, let relink):
            "'\(path)' syncs with a vault that was deleted on the server (\(reason)); nothing in this folder was deleted. To sync its files again, link it to another vault: move '\(path)/.vaultsync' away, then run '\(relink)'"
        case .membershipEnded(let path, let reason):
            "'\(path)' syncs with a vault shared with you that you are no longer a member of (\(reason)); nothing in this folder was deleted, and it no longer syncs"
        case .keyNotOpened(let path, let reason):
            "the vault of '\(path)' is encrypted and its key could not be opened: \(reason); nothing was synced or written"
        case .notEncryptedHere(let path): "'\(path)' syncs a vault that is not encrypted: it has no passphrase"
        case .notEncrypted(let path):
            "'\(path)' holds the key of an encrypted vault, but the server says the vault is not encrypted (was its database replaced?); nothing was synced. Link an empty folder to sync with it"
        case .noSuchKeyRevision(let revision): "the vault's key envelope has no past revision \(revision) (see 'vaultsync passphrase history')"
        case .sharingKeys(let message): message
        case .noConflict(let path): "'\(path)' has no open conflict (see 'vaultsync conflicts')"
        case .importEncrypted(let path):
            "'\(path)' syncs an encrypted vault: imports with history ('import --from git|syncthing') are for plain vaults; copy the files into the folder instead (their history stays behind)"
        case .serverMovedOn(let path): "'\(path)' changed on another device meanwhile; its newest version was saved as another conflict copy: look at it, then resolve again"
        }
    }
}

extension Set where Element == VaultPath {
    func contains(_ path: VaultPath?) -> Bool { path.map { contains($0) } ?? false }
}
