import Foundation
import Testing

/// The README's two commands install what is missing through Scripts/bootstrap.sh: what it
/// decides from the package query, checked with a fake query (`--plan` installs nothing).
@Suite struct BootstrapTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/bootstrap.sh").path

    /// Runs the script with a fake `dpkg-query` that knows `installed`; its status, stdout, stderr.
    /// `sudo`: whether there is a `sudo` to use (a fake one on the PATH).
    static func plan(_ purpose: String, installed: [String], uid: Int, sudo: Bool = true) throws -> (Int32, String, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bootstrap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let query = folder.appendingPathComponent("dpkg-query")
        // dpkg-query -W -f=FORMAT PACKAGE: the last argument is the package.
        let known = installed.joined(separator: " ")
        try """
            #!/bin/sh
            for p in \(known); do
                for last; do :; done
                [ "$p" = "$last" ] && { echo "install ok installed"; exit 0; }
            done
            exit 1
            """.write(to: query, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: query.path)
        let fakeSudo = folder.appendingPathComponent("sudo")
        try "#!/bin/sh\nexit 1\n".write(to: fakeSudo, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fakeSudo.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, purpose, "--plan"]
        process.environment = ["PATH": folder.path + ":/usr/bin:/bin", "QT_DPKG_QUERY": query.path, "QT_UID": String(uid),
                               "QT_SUDO": sudo ? "sudo" : "no-such-sudo-here"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, errors)
    }

    static let buildPackages = ["libncurses-dev", "libsqlite3-dev", "libpng-dev", "libjpeg-dev", "libcurl4-openssl-dev"]

    @Test func nothingMissingDoesNothing() throws {
        let (status, output, errors) = try Self.plan("test", installed: Self.buildPackages + ["hledger", "tmux"], uid: 1000)
        #expect(status == 0 && output.isEmpty && errors.isEmpty)
    }

    @Test func whatIsMissingIsInstalledAndSaidWhy() throws {
        let (status, output, errors) = try Self.plan("run", installed: ["libncurses-dev", "libpng-dev"], uid: 0)
        #expect(status == 0)
        #expect(output == "apt-get update\napt-get install -y libsqlite3-dev libjpeg-dev libcurl4-openssl-dev\n")
        #expect(errors.contains("libcurl4-openssl-dev: HTTP") && errors.contains("libsqlite3-dev: the offline cache"))
        #expect(!errors.contains("libncurses-dev") && !errors.contains("hledger"))
    }

    @Test func theTestsAlsoNeedHledgerAndTmuxAndANonRootUserGetsSudo() throws {
        let (status, output, _) = try Self.plan("test", installed: Self.buildPackages, uid: 1000)
        #expect(status == 0 && output == "sudo apt-get update\nsudo apt-get install -y hledger tmux\n")
    }

    @Test func withoutSudoItStopsWithTheCommand() throws {
        let (status, output, errors) = try Self.plan("test", installed: [], uid: 1000, sudo: false)
        #expect(status == 1 && output.isEmpty)
        #expect(errors.contains("run as root, then again: apt-get install -y libncurses-dev"))
    }
}
