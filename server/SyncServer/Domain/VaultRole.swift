import SyncProtocol

/// What a person may do in a vault (issue 34): ``WriteAdmission`` takes the role as one more input
/// of every write, ``MemberAdmission`` of every change to the members.
extension VaultRole {
    /// Whether the role may change the vault's files.
    var writes: Bool { self != .reader }
    /// Whether the role manages the vault: invites, changes roles, removes members, renews and rekeys.
    var manages: Bool { self == .owner || self == .admin }
}
