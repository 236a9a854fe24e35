import ArgumentParser
import Foundation
import Logging
import Synchronization
import SyncServer

/// A command that reads server settings (``ServerSettings``). Its settings are taken out of the
/// command line before ArgumentParser parses the rest (``extractSettings(_:)``), and listed in its
/// `--help` from the same table.
protocol ReadsSettings: ParsableCommand {
    static var settings: [ServerSetting] { get }
}

/// What the command line and the environment gave, taken before the command was parsed, and the
/// command they were given to (`vaultsync-server blobs gc`).
private let givenSettings = Mutex<(input: SettingsInput, command: String)?>(nil)

/// A setting that cannot be used: why, and the command whose `--help` lists its settings.
struct SettingRefused: Error, CustomStringConvertible {
    let description: String
    let command: String
}

extension ReadsSettings {
    /// The settings' values and the logger they describe: what every command starts with.
    static func setUp() throws -> (values: ServerSettingsValues, logger: Logger) {
        let given: (input: SettingsInput, command: String) =
            givenSettings.withLock { $0 } ?? (SettingsInput(environment: ProcessInfo.processInfo.environment), "vaultsync-server \(_commandName)")
        let values: ServerSettingsValues
        do {
            values = try given.input.values(of: settings, command: _commandName)
        } catch {
            throw SettingRefused(description: "\(error)", command: given.command)
        }
        return (values, makeLogger(level: values.logLevel, format: values.logFormat))
    }

    /// `discussion`, then the command's settings.
    static func discussion(_ text: String = "") -> String {
        (text.isEmpty ? "" : text + "\n\n") + ServerSettings.help(settings)
    }
}

/// Takes the settings of the command `arguments` name out of them; returns the rest, for ArgumentParser.
func extractSettings(_ arguments: [String]) throws -> [String] {
    var command: any ParsableCommand.Type = VaultSyncServerCommand.self
    var path = ["vaultsync-server"]
    for argument in arguments {
        guard let sub = command.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
        command = sub
        path.append(argument)
    }
    if command == VaultSyncServerCommand.self, let serve = command.configuration.defaultSubcommand {
        command = serve
        path.append(serve._commandName)
    }
    let known = (command as? any ReadsSettings.Type)?.settings ?? []
    do {
        let (input, rest) = try SettingsInput.extract(arguments, known: known, environment: ProcessInfo.processInfo.environment)
        givenSettings.withLock { $0 = (input, path.joined(separator: " ")) }
        return rest
    } catch {
        throw SettingRefused(description: error.description, command: path.joined(separator: " "))
    }
}

/// The logger of a command, writing to standard error in `format` (bootstraps the logging system).
func makeLogger(level: Logger.Level, format: LogFormat) -> Logger {
    LoggingSystem.bootstrap { label in
        switch format {
        case .json:
            var handler = JSONLogHandler(label: label)
            handler.logLevel = level
            return handler
        case .text:
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
    var logger = Logger(label: "vaultsync-server")
    logger.logLevel = level
    return logger
}
