import ArgumentParser
import CommandLineSecrets
import Foundation
import SyncClient
import SyncProtocol

/// Where an encrypted vault's passphrase or recovery key comes from: standard input (the line after
/// the password when that is read too), the environment, or a prompt on a terminal.
struct PassphraseOptions: ParsableArguments {
    @Flag(help: "Read the vault's passphrase from standard input (the line after the password, when --password-stdin reads one too).")
    var passphraseStdin = false
    @Flag(help: "Open an encrypted vault with its recovery key, read from standard input, instead of the passphrase.")
    var recoveryKeyStdin = false

    func validate() throws {
        if passphraseStdin && recoveryKeyStdin { throw ValidationError("give either --passphrase-stdin or --recovery-key-stdin") }
    }

    /// What opens the vault's key (asked only for an encrypted vault).
    func secret() throws -> VaultSecret {
        if recoveryKeyStdin { return .recoveryKey(try SecretSource.line("recovery key")) }
        if let key = SecretSource.environment("VAULTSYNC_RECOVERY_KEY") { return .recoveryKey(key) }
        return .passphrase(try SecretSource(
            what: "passphrase", stdin: passphraseStdin, environment: "VAULTSYNC_PASSPHRASE",
            prompt: "Vault passphrase (or set VAULTSYNC_RECOVERY_KEY to use the recovery key): ",
            missing: "this vault is end-to-end encrypted: give its passphrase (VAULTSYNC_PASSPHRASE or --passphrase-stdin) or its recovery key (VAULTSYNC_RECOVERY_KEY or --recovery-key-stdin)"
        ).read())
    }

    /// A new passphrase (for `init --encrypt`): typed twice on a terminal.
    func newPassphrase() throws -> String {
        try Self.newPassphrase(stdin: passphraseStdin, environment: "VAULTSYNC_PASSPHRASE")
    }

    static func newPassphrase(stdin: Bool, environment: String) throws -> String {
        let passphrase = try SecretSource(
            what: "passphrase", stdin: stdin, environment: environment, prompt: "New vault passphrase: ", typedTwice: true,
            missing: "no passphrase: set \(environment) or use --passphrase-stdin"
        ).read()
        guard passphrase.count >= minimumLength else {
            throw ValidationError("a vault passphrase has at least \(minimumLength) characters (a longer one resists guessing far better)")
        }
        return passphrase
    }

    static let minimumLength = 8
}

/// What `init --encrypt` says once: the recovery key, and what losing it means.
func printRecoveryKey(_ key: String, toStandardError: Bool) {
    let text = """
        The vault is end-to-end encrypted: the server stores only ciphertext.
        Its recovery key, shown this once and stored nowhere:

            \(key)

        Keep it apart from this device (on paper, or in a password manager). With neither the
        passphrase nor this key, nobody can read the vault's files again, you included: they are lost.

        """
    if toStandardError {
        FileHandle.standardError.write(Data(text.utf8))
    } else {
        print(text, terminator: "")
    }
}

/// `vaultsync passphrase change|history|restore`.
struct Passphrase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage an encrypted vault's passphrase.", subcommands: [Change.self, History.self, Restore.self])

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the vault key's envelopes: the current one, then the ones passphrase changes replaced.")
        @Argument(help: "The vault folder (default: the current folder).") var directory: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let envelopes = try await SyncEngine(root: vaultURL(directory)).keyEnvelopes()
            if json { return try printJSON(KeyRevisions(revisions: envelopes)) }
            for (index, envelope) in envelopes.enumerated() {
                let when = envelope.updatedAt.map(WireDate.format) ?? "?"
                print("revision \(envelope.revision ?? 0)  \(when)  by \(envelope.updatedByDevice ?? "a removed device")\(index == 0 ? "  (current)" : "")")
            }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a past envelope of the vault key current again (undo a passphrase change).",
            discussion: "The passphrase of that revision opens the vault again, for devices that link from now on; no file is encrypted again. Only a device that holds the vault's key can do it.")
        @Argument(help: "The revision to bring back (see 'vaultsync passphrase history').") var revision: Int
        @Argument(help: "The vault folder (default: the current folder).") var directory: String?

        func run() async throws {
            let stored = try await SyncEngine(root: vaultURL(directory)).restoreKeyEnvelope(revision: revision)
            print("the key envelope of revision \(revision) is current again (now revision \(stored.revision ?? 0)): its passphrase opens the vault")
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the vault's passphrase.",
            discussion: "The key is wrapped again; no file is encrypted again, other devices keep syncing, and the recovery key stays valid. The new passphrase comes from VAULTSYNC_NEW_PASSPHRASE, --passphrase-stdin, or a prompt.")
        @Argument(help: "The vault folder (default: the current folder).") var directory: String?
        @Flag(help: "Read the new passphrase from the first line of standard input.") var passphraseStdin = false

        func run() async throws {
            let root = vaultURL(directory)
            let engine = try SyncEngine(root: root)
            try await engine.changePassphrase(to: try PassphraseOptions.newPassphrase(stdin: passphraseStdin, environment: "VAULTSYNC_NEW_PASSPHRASE"))
            print("the passphrase of the vault synced at \(root.path) is changed; devices linked already keep syncing, and the next one to link needs the new passphrase")
        }
    }
}
