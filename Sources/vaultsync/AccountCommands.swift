import ArgumentParser
import Foundation
import SyncClient
import SyncCore
import SyncProtocol

struct Signup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create an account on a server.")
    @Option(help: "The server's base URL.") var server: String
    @Option(help: "Your email address.") var email: String
    @Option(help: "An invitation code from the server's operator (a server that takes no sign-ups needs one).") var invitation: String?
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let tokens = try await SyncAPI(baseURL: try serverURL(server)).signup(email: email, password: try password.password(), invitation: invitation)
        print("account created for \(email) (user \(tokens.userID)); link a folder with 'vaultsync init DIR --server \(server) --email \(email)'")
    }
}

struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Link a folder to your account and run the first sync.")
    @Argument(help: "The vault folder (created if missing).") var directory: String
    @Option(help: "The server's base URL.") var server: String
    @Option(help: "Your email address (to sign in with a password).") var email: String?
    @OptionGroup var identity: IdentityOptions
    @Option(help: "A one-time code from the web app's 'Add a device' page: signs in without the password.") var enroll: String?
    @Option(help: "A name for this device (default: the host name and a short suffix, e.g. 'laptop-k7q2').") var deviceName: String?
    @Flag(help: "Create the account first.") var createAccount = false
    @Option(help: "With --create-account: an invitation code from the server's operator (a server that takes no sign-ups needs one).") var invitation: String?
    @Option(name: .customLong("vault"), help: "Which vault to sync with: one of yours by name, one shared with you as OWNER/NAME (joining it when you are invited), or its id (default: the one the folder synced with before, else 'default').") var vaultName: String?
    @Option(help: "An invitation code someone gave you: joins their vault and syncs the folder with it.") var join: String?
    @Flag(name: .customLong("create"), help: "Create the vault named by --vault when the account has none of that name.") var createVault = false
    @Option(help: "A device class (such as desktop or phone) whose devices share which Obsidian community plugins are on, apart from the others (see 'vaultsync folders profile').") var profile: String?
    @Flag(help: "Print the first sync's report as JSON.") var json = false
    @Flag(help: "Make the vault end-to-end encrypted: the server stores only ciphertext. The vault must be empty; asks for a new passphrase and prints a recovery key once.")
    var encrypt = false
    @OptionGroup var password: PasswordOptions
    @OptionGroup var passphrase: PassphraseOptions

    func validate() throws {
        if createVault && vaultName == nil { throw ValidationError("--create needs --vault NAME") }
        if join != nil && (vaultName != nil || encrypt) { throw ValidationError("--join CODE names the vault itself: leave out --vault and --encrypt") }
        if encrypt && passphrase.recoveryKeyStdin { throw ValidationError("--encrypt makes a new key: it takes a new passphrase, not a recovery key") }
        guard [email != nil, identity.provider != nil, enroll != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("sign in with one of --email (and a password), --provider NAME --id-token-stdin, or --enroll CODE")
        }
        if (identity.provider != nil || enroll != nil) && createAccount { throw ValidationError("--create-account is for passwords: it makes a new account") }
        if invitation != nil && !createAccount { throw ValidationError("--invitation goes with --create-account (and --email): it lets a new account in") }
        if let profile { do { _ = try DeviceProfile(profile) } catch { throw ValidationError("--profile: \(error)") } }
    }

    func run() async throws {
        let root = vaultURL(directory)
        // The outermost folder this command makes, which goes again when linking fails.
        var made: URL?
        var missing = root.standardizedFileURL
        while !FileManager.default.fileExists(atPath: missing.path), missing.pathComponents.count > 1 {
            made = missing
            missing = missing.deletingLastPathComponent()
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let engine: SyncEngine
        do {
            engine = try await link(root)
        } catch {
            if let made { try? FileManager.default.removeItem(at: made) }
            throw error
        }
        if let profile { try DeviceProfileRecord.choose(profile, root: root) }
        let report = try await engine.sync(progress: ProgressPrinter().handler)
        if !json, FileManager.default.fileExists(atPath: root.appendingPathComponent(".obsidian").path) {
            // Said once, where a person first meets it (docs/cli.md, "Obsidian's settings").
            print("""
                an Obsidian vault: .obsidian/workspace*.json and .obsidian/cache stay on each device, and Obsidian's \
                settings and plugins' data (.obsidian/**/*.json) merge key by key (see docs/cli.md)
                """)
            if let profile { print(profileLine(profile)) }
        }
        try finish(report, json: json)
    }

    /// Links `root`, and says so.
    private func link(_ root: URL) async throws -> SyncEngine {
        let credential: SignInCredential = if let email, let invitation {
            .invitation(email: email, password: try password.password(), code: invitation)
        } else if let email {
            .password(email: email, password: try password.password(), createAccount: createAccount)
        } else if let enroll {
            .enrollment(code: enroll)
        } else {
            try identity.credential()
        }
        let passphrase = passphrase
        let choice: VaultKeyChoice = encrypt ? .create(passphrase: try passphrase.newPassphrase()) : .unlock { try passphrase.secret() }
        let (engine, recoveryKey) = try await SyncEngine.link(
            root: root, server: try serverURL(server), credential: credential,
            deviceName: deviceName ?? DeviceName.byDefault(), vault: vaultName, createVault: createVault, joinCode: join, key: choice)
        let named = join == nil ? vaultName : try? await engine.linkedVault().qualifiedName
        if !json { print("linked \(root.path) to \(server) as \(email ?? identity.provider ?? "an enrolment code")\(named.map { ", vault '\($0)'" } ?? "")\(engine.isEncrypted ? " (end-to-end encrypted)" : "")") }
        if let recoveryKey { printRecoveryKey(recoveryKey, toStandardError: json) }
        return engine
    }
}

/// Signing in through a provider the server trusts, for scripts: an app gets the ID token from
/// the provider's own SDK.
struct IdentityOptions: ParsableArguments {
    @Option(help: "Sign in through this provider of the server (e.g. 'apple') instead of a password.") var provider: String?
    @Flag(help: "With --provider: read the provider's ID token from the first line of standard input.") var idTokenStdin = false
    @Option(help: "With --provider: the nonce the token was requested with (from 'vaultsync nonce').") var nonce: String?

    func validate() throws {
        if provider != nil && !idTokenStdin { throw ValidationError("--provider needs --id-token-stdin (the ID token on standard input)") }
        if provider != nil && nonce == nil {
            throw ValidationError("--provider needs --nonce: get one with 'vaultsync nonce --server URL' and request the ID token with it")
        }
        if provider == nil && (idTokenStdin || nonce != nil) { throw ValidationError("--id-token-stdin and --nonce go with --provider NAME") }
    }

    func credential() throws -> SignInCredential {
        guard let provider else { throw ValidationError("--provider is needed") }
        guard let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
            throw ValidationError("no ID token on standard input")
        }
        return .idToken(provider: provider, token: line, nonce: nonce)
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign a linked folder back in (after 'vaultsync logout', or when the server ended the session).",
        discussion: "Uses the server, account and device the folder was linked with; nothing is downloaded again.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Option(help: "Your email address (default: the one the folder was linked with).") var email: String?
    @OptionGroup var identity: IdentityOptions
    @OptionGroup var password: PasswordOptions
    @OptionGroup var passphrase: PassphraseOptions

    func validate() throws {
        if identity.provider != nil && email != nil { throw ValidationError("sign in with either a password or --provider NAME --id-token-stdin") }
    }

    func run() async throws {
        let root = vaultURL(directory)
        let engine: SyncEngine
        if identity.provider != nil, case .idToken(let provider, let token, let nonce) = try identity.credential() {
            engine = try await SyncEngine.login(root: root, provider: provider, idToken: token, nonce: nonce)
        } else {
            engine = try await SyncEngine.login(root: root, email: email, password: try password.password())
        }
        // Signing out removed an encrypted vault's key with the tokens.
        let passphrase = passphrase
        try await engine.unlock { try passphrase.secret() }
        print("signed in; \(root.path) syncs again ('vaultsync sync')")
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sign this device out (files and sync state stay).")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?

    func run() async throws {
        let root = vaultURL(directory)
        do {
            try await SyncEngine(root: root).logout()
            print("signed out; 'vaultsync login \(root.path)' signs back in")
        } catch SyncEngineError.signedOut {
            print("already signed out; 'vaultsync login \(root.path)' signs back in")
        }
    }
}
