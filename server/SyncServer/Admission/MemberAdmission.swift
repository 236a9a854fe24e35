import SyncProtocol

/// Who may do what to a shared vault's members and invitations: one pure rule, carried out by
/// ``MemberService``. Every member sees who else is in the vault; the owner and admins invite,
/// change roles and remove; any member may leave; nobody changes or removes the owner (whose
/// account keeps the vault), and nobody is made owner.
enum MemberAdmission {
    enum Action: Equatable {
        /// List the members.
        case list
        /// List, make or revoke invitations (making one: with `role`).
        case invite(role: VaultRole)
        case manageInvitations
        /// Give the member whose role is `target` the role `to`.
        case setRole(target: VaultRole, to: VaultRole)
        /// Take the member whose role is `target` out; leaving when `isSelf`.
        case remove(target: VaultRole, isSelf: Bool)
    }

    enum Refusal: Error, Equatable {
        /// Only the owner and admins manage members.
        case adminOnly
        /// The owner is no member: not given a role, not removed, never invited.
        case owner
        /// An end-to-end encrypted vault is not shared (yet): its key cannot be given to a member.
        case encrypted
    }

    /// - Parameters:
    ///   - actor: the caller's role in the vault.
    ///   - encrypted: whether the vault is end-to-end encrypted.
    static func decide(_ action: Action, actor: VaultRole, encrypted: Bool) -> Refusal? {
        let manages = actor == .owner || actor == .admin
        switch action {
        case .list:
            return nil
        case .invite(let role):
            guard manages else { return .adminOnly }
            if role == .owner { return .owner }
            return encrypted ? .encrypted : nil
        case .manageInvitations:
            return manages ? nil : .adminOnly
        case .setRole(let target, let to):
            guard manages else { return .adminOnly }
            return target == .owner || to == .owner ? .owner : nil
        case .remove(let target, let isSelf):
            if target == .owner { return .owner }
            return isSelf || manages ? nil : .adminOnly
        }
    }
}

extension MemberAdmission.Refusal {
    /// The refusal as the wire says it, naming the vault.
    func serviceError(vaultName: String) -> ServiceError {
        switch self {
        case .adminOnly:
            .adminOnly("only the owner and admins of '\(vaultName)' invite, change roles and remove members")
        case .owner:
            .invalidRequest("the owner of '\(vaultName)' is not a member: their role is not changed, they are not removed or invited (the owner deletes the vault instead)")
        case .encrypted:
            .invalidRequest("'\(vaultName)' is end-to-end encrypted, and this server does not share encrypted vaults yet: its key cannot be given to a member; nothing was changed")
        }
    }
}
