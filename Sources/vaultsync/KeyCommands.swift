import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync keys [show|create|unlock|change-passphrase]`: the account's sharing keys, through which an encrypted
/// vault's key is given to the people it is shared with (`docs/sharing.md`).
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Your account's sharing keys: make them, open them on this device, show your safety number.",
        discussion: """
            An end-to-end encrypted vault is shared by wrapping its key to each person's sharing keys; nobody shares a \
            passphrase. Make them once ('keys create'), on any folder linked to your account; other devices open them with \
            the same passphrase when they link a shared encrypted vault, or with 'keys unlock'. Compare safety numbers with \
            the people you share with (in person, on a call): a server that gave out another key cannot keep the number.
            """,
        subcommands: [KeysShow.self, KeysCreate.self, KeysUnlock.self, KeysChangePassphrase.self], defaultSubcommand: KeysShow.self)
}

struct KeysShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show your safety number, and whether this device holds your sharing keys.")
    @Option(help: "A vault folder linked to your account (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    struct Output: Encodable {
        let safetyNumber: String?
        let onThisDevice: Bool
        enum CodingKeys: String, CodingKey {
            case safetyNumber = "safety_number"
            case onThisDevice = "on_this_device"
        }
    }

    func run() async throws {
        let status = try await SyncEngine(root: vaultURL(vault)).sharingKeysStatus()
        if json { return try printJSON(Output(safetyNumber: status?.safetyNumber, onThisDevice: status?.onThisDevice ?? false)) }
        guard let status else { return print("this account has no sharing keys yet: make them with 'vaultsync keys create'") }
        print("your safety number: \(status.safetyNumber)")
        print(status.onThisDevice ? "this device holds your sharing keys" : "this device does not hold them: 'vaultsync keys unlock' opens them here")
    }
}

struct KeysCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Make your account's sharing keys (once).",
        discussion: "The private half is sealed under a passphrase (VAULTSYNC_PASSPHRASE, --passphrase-stdin, or typed twice) and under a recovery key shown once. Use the passphrase of your encrypted vaults, so that one passphrase opens everything on a new device.")
    @Option(help: "A vault folder linked to your account (default: the current folder).") var vault: String?
    @Flag(help: "Read the passphrase from the first line of standard input.") var passphraseStdin = false
    @Flag(help: "Print JSON (the recovery key included).") var json = false

    struct Output: Encodable {
        let safetyNumber: String
        let recoveryKey: String
        enum CodingKeys: String, CodingKey {
            case safetyNumber = "safety_number"
            case recoveryKey = "recovery_key"
        }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let passphrase = try PassphraseOptions.newPassphrase(stdin: passphraseStdin, environment: "VAULTSYNC_PASSPHRASE")
        let made = try await engine.createSharingKeys(passphrase: passphrase)
        if json { return try printJSON(Output(safetyNumber: made.safetyNumber, recoveryKey: made.recoveryKey)) }
        print("""
            Your sharing keys are made. Your safety number: \(made.safetyNumber)
            Your sharing keys' recovery key, shown this once and stored nowhere:

                \(made.recoveryKey)

            Keep it apart from this device. With neither the passphrase nor this key, vaults shared with you
            cannot be opened on a new device until someone gives you their key again.
            """)
    }
}

struct KeysUnlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Open your sharing keys on this device (with your passphrase, or the recovery key of 'keys create').")
    @Option(help: "A vault folder linked to your account (default: the current folder).") var vault: String?
    @OptionGroup var passphrase: PassphraseOptions

    func run() async throws {
        let number = try await SyncEngine(root: vaultURL(vault)).unlockSharingKeys(try passphrase.secret())
        print("this device holds your sharing keys (safety number \(number))")
    }
}

struct KeysChangePassphrase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-passphrase", abstract: "Seal your sharing keys under another passphrase (the recovery key stays valid).",
        discussion: "This device must hold them ('vaultsync keys unlock'). The new passphrase comes from VAULTSYNC_NEW_PASSPHRASE, --passphrase-stdin, or a prompt (typed twice). Nobody else is affected: the keys themselves do not change.")
    @Option(help: "A vault folder linked to your account (default: the current folder).") var vault: String?
    @Flag(help: "Read the new passphrase from the first line of standard input.") var passphraseStdin = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        try await engine.changeSharingKeysPassphrase(to: try PassphraseOptions.newPassphrase(stdin: passphraseStdin, environment: "VAULTSYNC_NEW_PASSPHRASE"))
        print("your sharing keys open with the new passphrase from now on (and still with their recovery key)")
    }
}
