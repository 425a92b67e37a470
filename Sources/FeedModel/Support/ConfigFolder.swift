import Foundation

/// The app's configuration folder, where what it keeps of a person's sign-ins lives (remembered
/// tokens, OAuth pairs, a bank's kept credential or API context): `$XDG_CONFIG_HOME/qapital-tui`
/// when that is an absolute path, else `.config/qapital-tui` in the home folder (`HomePath`).
public enum ConfigFolder {
    public static func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("qapital-tui")
        }
        return URL(fileURLWithPath: HomePath.expand("~", environment: environment)).appendingPathComponent(".config/qapital-tui")
    }
}
