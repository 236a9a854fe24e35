import ArgumentParser
import CommandLineSecrets
import Foundation
import SyncProtocol
import SyncServer

/// `vaultsync-server user …`: per-user administration.
struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Per-user administration: accounts, passwords, quotas and limits.",
        subcommands: [List.self, Show.self, Create.self, SetQuota.self, ResetPassword.self, SetAdmin.self, Disable.self, Enable.self, Delete.self])

    struct List: AsyncParsableCommand, ReadsSettings {
        static let settings = ServerSettings.common
        static let configuration = CommandConfiguration(abstract: "List every user with their devices, files and bytes.", discussion: discussion())
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (values, logger) = try Self.setUp()
            let configuration = values.configuration
            let users = try await VaultSyncServer.listUsers(configuration: configuration, logger: logger)
            if json {
                let encoder = WireCoding.encoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                return print(String(decoding: try encoder.encode(users), as: UTF8.self))
            }
            if users.isEmpty { print("no users") }
            for user in users {
                let marks = (user.admin ? "  admin" : "") + (user.disabledAt.map { "  disabled since \(WireDate.format($0))" } ?? "")
                print("\(user.email)  created \(WireDate.format(user.createdAt))  \(user.devices) device\(user.devices == 1 ? "" : "s")  \(user.files) files  \(user.bytes) bytes\(marks)")
            }
        }
    }

    struct Create: AsyncParsableCommand, ReadsSettings {
        static let configuration = CommandConfiguration(
            abstract: "Create an account with a password (how accounts are made on a server run with --no-signup).",
            discussion: discussion("The password comes from VAULTSYNC_NEW_PASSWORD, --password-stdin, or a prompt on a terminal; give it to the person, who signs in with 'vaultsync init' and may change it with 'vaultsync account password'."))
        static let settings = ServerSettings.common
        @Argument(help: "The new account's email.") var email: String
        @Flag(help: "Read the password from the first line of standard input.") var passwordStdin = false

        func run() async throws {
            let (values, logger) = try Self.setUp()
            let configuration = values.configuration
            let password = try newPassword(for: email, fromStdin: passwordStdin)
            do {
                let id = try await VaultSyncServer.createUser(configuration: configuration, logger: logger, email: email, password: password)
                print("\(email): account created (user \(id.uuidString.lowercased())); sign in with 'vaultsync init DIR --server URL --email \(email)'")
            } catch let error as AdminError {
                throw AdminFailure(error.description)
            }
        }
    }

    struct ResetPassword: AsyncParsableCommand, ReadsSettings {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Set a user's password and sign out every device of theirs.",
            discussion: discussion("The new password comes from VAULTSYNC_NEW_PASSWORD, --password-stdin, or a prompt on a terminal. Each device then signs in again with it ('vaultsync login')."))
        static let settings = ServerSettings.common
        @Argument(help: "The user's email.") var email: String
        @Flag(help: "Read the new password from the first line of standard input.") var passwordStdin = false

        func run() async throws {
            let (values, logger) = try Self.setUp()
            let configuration = values.configuration
            let password = try newPassword(for: email, fromStdin: passwordStdin)
            do {
                guard try await VaultSyncServer.resetPassword(configuration: configuration, logger: logger, email: email, password: password) else {
                    throw AdminFailure("no user with email '\(email)'")
                }
            } catch let error as AdminError {
                throw AdminFailure(error.description)
            }
            print("\(email): password set; every device of theirs was signed out")
        }

    }

    struct Delete: AsyncParsableCommand, ReadsSettings {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user: every vault, version, device and session, and every byte of theirs in the blob store.",
            discussion: discussion("There is no undo. Without --yes the command asks you to type the email again (on a terminal only)."))
        static let settings = ServerSettings.common + ServerSettings.storage
        @Argument(help: "The user's email.") var email: String
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let (values, logger) = try Self.setUp()
            let configuration = values.configuration
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else { throw AdminFailure("refusing to delete '\(email)' without --yes when not on a terminal") }
                print("This deletes \(email) and all their notes on this server, for good. Type the email again to confirm: ", terminator: "")
                guard readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased() == email.lowercased() else {
                    throw AdminFailure("not confirmed; nothing was deleted")
                }
            }
            guard let removed = try await VaultSyncServer.deleteUser(configuration: configuration, logger: logger, email: email) else {
                throw AdminFailure("no user with email '\(email)'")
            }
            print("\(email) deleted: \(removed.vaults) vault\(removed.vaults == 1 ? "" : "s"), \(removed.files) files, \(removed.blobs) stored blobs, \(removed.devices) devices")
        }
    }
}

/// A password an admin command sets: from standard input, `VAULTSYNC_NEW_PASSWORD`, or a prompt
/// (``SecretSource``, as `vaultsync` reads its secrets); a refusal is one line, no usage.
private func newPassword(for email: String, fromStdin: Bool) throws -> String {
    let source = SecretSource(
        what: "password", stdin: fromStdin, environment: "VAULTSYNC_NEW_PASSWORD", prompt: "New password for \(email): ",
        missing: "no password: set VAULTSYNC_NEW_PASSWORD or use --password-stdin")
    do {
        return try source.read()
    } catch let error as ValidationError {
        throw AdminFailure(error.message)
    }
}

/// A refusal of an admin command: one line on standard error, exit code 1 (no usage text).
struct AdminFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
