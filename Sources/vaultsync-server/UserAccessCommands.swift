import ArgumentParser
import Foundation
import SyncServer

extension User {
    struct SetAdmin: AsyncParsableCommand, ReadsSettings {
        static let configuration = CommandConfiguration(
            commandName: "set-admin",
            abstract: "Mark a user an operator: the web app then shows them its operator pages.",
            discussion: discussion("""
                An operator sees every user with their usage, sets quotas, disables, enables and deletes \
                accounts, resets passwords, makes invitation codes and sees the server's health, at \
                /app/admin/ in the web app. --remove takes the mark away; it counts from the next page.
                """))
        static let settings = ServerSettings.common
        @Argument(help: "The user's email.") var email: String
        @Flag(help: "Take the mark away instead.") var remove = false

        func run() async throws {
            let (values, logger) = try Self.setUp()
            guard try await VaultSyncServer.setAdmin(configuration: values.configuration, logger: logger, email: email, admin: !remove) else {
                throw AdminFailure("no user with email '\(email)'")
            }
            print(remove ? "\(email) is no longer an operator" : "\(email) is an operator: the web app shows them its operator pages (/app/admin/)")
        }
    }

    struct Disable: AsyncParsableCommand, ReadsSettings {
        static let configuration = CommandConfiguration(
            abstract: "Disable a user: every device of theirs is signed out and no sign-in works until 'user enable'.",
            discussion: discussion("Nothing of theirs is deleted: their vaults, history and devices stay as they are."))
        static let settings = ServerSettings.common
        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            let (values, logger) = try Self.setUp()
            guard try await VaultSyncServer.setDisabled(configuration: values.configuration, logger: logger, email: email, disabled: true) else {
                throw AdminFailure("no user with email '\(email)'")
            }
            print("\(email) is disabled: every device of theirs was signed out; 'vaultsync-server user enable \(email)' lets them sign in again")
        }
    }

    struct Enable: AsyncParsableCommand, ReadsSettings {
        static let configuration = CommandConfiguration(
            abstract: "Enable a disabled user again: they sign in as before (each device with 'vaultsync login').")
        static let settings = ServerSettings.common
        @Argument(help: "The user's email.") var email: String

        func run() async throws {
            let (values, logger) = try Self.setUp()
            guard try await VaultSyncServer.setDisabled(configuration: values.configuration, logger: logger, email: email, disabled: false) else {
                throw AdminFailure("no user with email '\(email)'")
            }
            print("\(email) is enabled: they can sign in again")
        }
    }
}
