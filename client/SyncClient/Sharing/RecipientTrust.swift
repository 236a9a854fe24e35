import Foundation
import VaultCrypto

/// Whether a device gives a new generation of a vault's key to the people the server lists
/// (`docs/sharing.md`, "Keys and trust"): one pure rule. The server lists the members and hands
/// out their keys, so it could add a key of its own and receive every later generation; a device
/// wraps a generation only to its own keys and to keys whose safety number this folder pinned
/// (when it invited that person, when a number was confirmed here, or when it took a key they
/// signed), with that number still.
enum RecipientTrust {
    struct Recipient: Equatable, Sendable {
        let userID: UUID
        let email: String
        let keys: SharingPublicKeys
    }

    enum Doubt: Equatable, Sendable {
        /// This folder never pinned the person's number.
        case neverPinned(email: String)
        /// The number is not the one this folder pinned.
        case numberChanged(email: String)
    }

    /// What keeps each doubted recipient from being given a key, in list order; empty when all
    /// may be.
    static func doubts(_ recipients: [Recipient], own: SharingPublicKeys, pinned: [UUID: String]) -> [Doubt] {
        recipients.compactMap { recipient in
            guard recipient.keys != own else { return nil }
            guard let number = pinned[recipient.userID] else { return .neverPinned(email: recipient.email) }
            return number == recipient.keys.safetyNumber ? nil : .numberChanged(email: recipient.email)
        }
    }

    /// The refusal a person reads: who, why, and what to do.
    static func refusal(_ doubts: [Doubt]) -> String {
        let named = doubts.map { doubt in
            switch doubt {
            case .neverPinned(let email): "\(email) (never compared on this device)"
            case .numberChanged(let email): "\(email) (safety number changed)"
            }
        }
        return "the vault's key was not renewed: the server lists people this folder has not pinned a safety number for: "
            + named.joined(separator: ", ")
            + ". Compare each number with them ('vaultsync members'), confirm it ('vaultsync members confirm EMAIL'), then sync again; nothing was given to anyone"
    }
}
