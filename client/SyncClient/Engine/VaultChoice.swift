import Foundation
import SyncProtocol

/// Which of the vaults a person reaches a name given to `init --vault` means: their own vault of
/// that name, a shared vault as `OWNER/NAME` (the owner's email, any case), or any of them by id.
enum VaultChoice {
    static func find(_ given: String, in vaults: [VaultInfo]) -> VaultInfo? {
        if let id = UUID(uuidString: given) { return vaults.first { $0.vaultID == id } }
        // A vault's name has no '/', an email neither: the last one splits them.
        if let slash = given.lastIndex(of: "/") {
            let owner = given[..<slash].lowercased()
            let name = String(given[given.index(after: slash)...])
            return vaults.first { $0.owner?.lowercased() == owner && $0.name == name }
        }
        return vaults.first { $0.owner == nil && $0.name == given }
    }

    /// The invitation (to the caller's account) to the vault `given` names, if one waits.
    static func invitation(_ given: String, in invitations: [VaultInvitation]) -> VaultInvitation? {
        if let id = UUID(uuidString: given) { return invitations.first { $0.vaultID == id } }
        guard let slash = given.lastIndex(of: "/") else { return nil }
        let owner = given[..<slash].lowercased()
        let name = String(given[given.index(after: slash)...])
        return invitations.first { $0.owner.lowercased() == owner && $0.vaultName == name }
    }
}
