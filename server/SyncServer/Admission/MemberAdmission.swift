import Foundation
import SyncProtocol

/// Who may do what to a shared vault's members, invitations and key generations: one pure rule,
/// carried out by ``MemberService``. Every member sees who else is in the vault; the owner and
/// admins invite, change roles, remove and make the vault key's next generation; any member may
/// leave; nobody changes or removes the owner (whose account keeps the vault), and nobody is made
/// owner. In an end-to-end encrypted vault the server cannot give anyone the key, so an invitation
/// carries every generation wrapped to the invitee, and a new generation is wrapped to exactly the
/// people in the vault (`docs/decisions/0003-shared-encrypted-vaults.md`).
enum MemberAdmission {
    enum Action: Equatable {
        /// List the members.
        case list
        /// Make an invitation with `role`: by code, or to an account with the generations `keys`
        /// names (generation and key id) wrapped to it.
        case invite(role: VaultRole, byCode: Bool = false, keys: [KeyName] = [])
        /// List or revoke invitations.
        case manageInvitations
        /// Give the member whose role is `target` the role `to`.
        case setRole(target: VaultRole, to: VaultRole)
        /// Take the member whose role is `target` out; leaving when `isSelf`.
        case remove(target: VaultRole, isSelf: Bool)
        /// Make generation `key` of the vault's key, wrapped to `recipients`, while `people` (the
        /// owner and the members) are in the vault.
        case rotate(key: KeyName, recipients: Set<UUID>, people: Set<UUID>)
    }

    /// A generation of the vault's key as a request names it.
    struct KeyName: Equatable, Hashable {
        let generation: Int
        let keyID: String
    }

    enum Refusal: Error, Equatable {
        /// Only the owner and admins manage members.
        case adminOnly
        /// The owner is no member: not given a role, not removed, never invited.
        case owner
        /// An encrypted vault's key is wrapped to a person: a code names nobody.
        case encryptedByCode
        /// An invitation to an encrypted vault without each generation (1 to `generations`)
        /// wrapped to the invitee, or with a key id that is not the vault's.
        case keysMissing(generations: Int)
        /// A new generation for a plain vault.
        case notEncrypted
        /// A new generation that is not the one after the newest (`current`): another device made
        /// it first.
        case staleGeneration(current: Int)
        /// A new generation not wrapped to exactly the people in the vault.
        case recipientsDiffer
        /// A key id that is not 16 lowercase hex digits.
        case malformedKeyID
    }

    /// - Parameters:
    ///   - actor: the caller's role in the vault.
    ///   - keyIDs: each generation's key id, generation 1 first; empty for a plain vault.
    static func decide(_ action: Action, actor: VaultRole, keyIDs: [String]) -> Refusal? {
        let manages = actor == .owner || actor == .admin
        switch action {
        case .list:
            return nil
        case .invite(let role, let byCode, let keys):
            guard manages else { return .adminOnly }
            if role == .owner { return .owner }
            guard !keyIDs.isEmpty else { return nil }
            if byCode { return .encryptedByCode }
            let expected = Set(keyIDs.enumerated().map { KeyName(generation: $0.offset + 1, keyID: $0.element) })
            return Set(keys) == expected && keys.count == expected.count ? nil : .keysMissing(generations: keyIDs.count)
        case .manageInvitations:
            return manages ? nil : .adminOnly
        case .setRole(let target, let to):
            guard manages else { return .adminOnly }
            return target == .owner || to == .owner ? .owner : nil
        case .remove(let target, let isSelf):
            if target == .owner { return .owner }
            return isSelf || manages ? nil : .adminOnly
        case .rotate(let key, let recipients, let people):
            guard manages else { return .adminOnly }
            guard !keyIDs.isEmpty else { return .notEncrypted }
            guard key.keyID.utf8.count == 16, key.keyID.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) else {
                return .malformedKeyID
            }
            guard key.generation == keyIDs.count + 1, !keyIDs.contains(key.keyID) else { return .staleGeneration(current: keyIDs.count) }
            return recipients == people ? nil : .recipientsDiffer
        }
    }
}

extension MemberAdmission.Refusal {
    /// The refusal as the wire says it, naming the vault.
    func serviceError(vaultName: String) -> ServiceError {
        switch self {
        case .adminOnly:
            .adminOnly("only the owner and admins of '\(vaultName)' invite, change roles, remove members and renew its key")
        case .owner:
            .invalidRequest("the owner of '\(vaultName)' is not a member: their role is not changed, they are not removed or invited (the owner deletes the vault instead)")
        case .encryptedByCode:
            .invalidRequest("'\(vaultName)' is end-to-end encrypted: its key is wrapped to a person, so invite them by their email, not with a code; nothing was changed")
        case .keysMissing(let generations):
            .invalidRequest(
                "'\(vaultName)' is end-to-end encrypted: an invitation carries each of its \(generations) key generation(s), with the vault's key ids, wrapped to the invitee's sharing keys (a current vaultsync does this); nothing was changed")
        case .notEncrypted:
            .invalidRequest("'\(vaultName)' is not end-to-end encrypted: it has no key to renew")
        case .staleGeneration(let current):
            .keyConflict("'\(vaultName)' has key generation \(current) now, made by another device meanwhile: read it and try again")
        case .malformedKeyID:
            .invalidRequest("a key id is 16 lowercase hex digits (docs/encryption.md)")
        case .recipientsDiffer:
            .invalidRequest("a new key generation of '\(vaultName)' is wrapped to exactly its owner and members, each once (someone joined or left meanwhile?); nothing was changed")
        }
    }
}
