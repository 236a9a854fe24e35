import ArgumentParser
import CommandLineSecrets
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync account [password|delete]`: the account the vault's device is signed in to.
struct Account: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Your account: its ways to sign in, its password, deleting it.",
        subcommands: [AccountIdentities.self, AccountLink.self, AccountUnlink.self, AccountPassword.self, AccountDelete.self])
}

/// Prints the account's ways to sign in.
private func printIdentities(_ identities: [LinkedIdentity], json: Bool) throws {
    if json { return try printJSON(LinkedIdentities(identities: identities)) }
    for identity in identities { print("\(identity.provider)  \(identity.subject)  since \(WireDate.format(identity.createdAt))") }
}

struct AccountIdentities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "identities", abstract: "List the ways you sign in (password, providers).")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try printIdentities(try await SyncEngine(root: vaultURL(directory)).identities(), json: json)
    }
}

struct AccountLink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link", abstract: "Let a provider's identity sign in to this account too (its ID token on standard input).",
        discussion: "An identity is never linked because its email matches: link it here, signed in, on purpose.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @OptionGroup var identity: IdentityOptions
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if identity.provider == nil { throw ValidationError("give --provider NAME --id-token-stdin") }
    }

    func run() async throws {
        guard case .idToken(let provider, let token, let nonce) = try identity.credential() else { return }
        try printIdentities(try await SyncEngine(root: vaultURL(directory)).linkIdentity(provider: provider, idToken: token, nonce: nonce), json: json)
    }
}

struct AccountUnlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlink", abstract: "Stop a provider (or 'password') signing in to this account; never the last one.")
    @Argument(help: "The provider, or 'password'.") var provider: String
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try printIdentities(try await SyncEngine(root: vaultURL(directory)).unlinkIdentity(provider: provider), json: json)
    }
}

struct AccountPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password", abstract: "Change your password; your other devices are signed out and sign in again with the new one.",
        discussion: "The current password comes from VAULTSYNC_PASSWORD or a prompt, the new one from VAULTSYNC_NEW_PASSWORD or a prompt (typed twice); with --password-stdin, the current one is the first line and the new one the second.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Read the current and the new password from the first two lines of standard input.") var passwordStdin = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(directory))
        let (current, new) = try passwords()
        try await engine.changePassword(current: current, new: new)
        print("password changed; your other devices were signed out ('vaultsync login' signs each in again)")
    }

    private func passwords() throws -> (String, String) {
        let missing = "no password: set VAULTSYNC_PASSWORD and VAULTSYNC_NEW_PASSWORD, or use --password-stdin"
        let current = SecretSource(what: "password", stdin: passwordStdin, environment: "VAULTSYNC_PASSWORD", prompt: "Current password: ", missing: missing)
        let new = SecretSource(
            what: "new password", stdin: passwordStdin, environment: "VAULTSYNC_NEW_PASSWORD", prompt: "New password: ", typedTwice: true, missing: missing)
        do {
            return (try current.read(), try new.read())
        } catch is ValidationError where passwordStdin {
            throw ValidationError("--password-stdin needs the current password and the new one on two lines")
        }
    }
}

struct AccountDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete your account and everything of it on the server (this folder's files stay).",
        discussion: "There is no undo: save a copy first with 'vaultsync export DIR --out notes.zip'. Without --yes the command asks you to type 'delete' (on a terminal only). The password comes from VAULTSYNC_PASSWORD, --password-stdin, or a prompt; an account that signs in through a provider gives a fresh ID token instead (--provider NAME --id-token-stdin).")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Do not ask for confirmation.") var yes = false
    @Flag(help: "Print what was deleted as JSON.") var json = false
    @OptionGroup var identity: IdentityOptions
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let root = vaultURL(directory)
        let engine = try SyncEngine(root: root)
        // Said in both ways of asking: there is no undo, and an export is the way to keep a copy.
        let exportFirst = "save a copy of each vault first with 'vaultsync export \(root.path) --out notes.zip' (one per vault folder)"
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw CLIRefusal("refusing to delete the account without --yes when not on a terminal; nothing was deleted. There is no undo: \(exportFirst)")
            }
            print("This deletes your account and every note, version and device of it on the server, for good.")
            print("There is no undo: \(exportFirst). Type 'delete' to go on: ", terminator: "")
            guard readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces) == "delete" else {
                throw CLIRefusal("not confirmed; nothing was deleted")
            }
        }
        let proof: DeleteAccountRequest = if identity.provider != nil, case .idToken(let provider, let token, let nonce) = try identity.credential() {
            DeleteAccountRequest(provider: provider, idToken: token, nonce: nonce ?? "")
        } else {
            DeleteAccountRequest(password: try password.password())
        }
        let deleted = try await engine.deleteAccount(proof: proof)
        if json { return try printJSON(deleted) }
        print("account deleted: \(deleted.vaults) vault\(deleted.vaults == 1 ? "" : "s"), \(counted(deleted.files, "file")), \(deleted.devices) device\(deleted.devices == 1 ? "" : "s") removed from the server; the files in \(root.path) stay")
    }
}

/// A command that declined to act (not confirmed): one line, exit code 1, nothing changed.
struct CLIRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
