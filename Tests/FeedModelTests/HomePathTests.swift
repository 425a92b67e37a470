import FeedModel
import Testing

/// `~/` means `$HOME` wherever the app takes a path (issue 41, item 9).
@Suite struct HomePathTests {
    @Test(arguments: [
        ("~/photo.png", "/home/ada/photo.png"),
        ("~", "/home/ada"),
        ("~/", "/home/ada/"),
        ("/tmp/~/x", "/tmp/~/x"),
        ("relative/~/x", "relative/~/x"),
        ("~ada/x", "~ada/x"),
        ("", ""),
    ])
    func aLeadingTildeIsTheHomeFolder(path: String, expanded: String) {
        #expect(HomePath.expand(path, environment: ["HOME": "/home/ada"]) == expanded)
        #expect(HomePath.expand(path, environment: ["HOME": "/home/ada/"]) == expanded)
    }

    @Test func aHomeThatIsNotAnAbsolutePathIsNotUsed() {
        let expanded = HomePath.expand("~/x", environment: ["HOME": "relative"])
        #expect(expanded.hasPrefix("/") && expanded.hasSuffix("/x"))
    }
}

/// Where kept sign-ins live, for every source the same (it was written four times).
@Suite struct ConfigFolderTests {
    @Test func xdgFirstThenTheHomeFolder() {
        #expect(ConfigFolder.url(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/ada"]).path == "/x/cfg/qapital-tui")
        #expect(ConfigFolder.url(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/ada"]).path == "/home/ada/.config/qapital-tui")
        #expect(ConfigFolder.url(environment: ["HOME": "/home/ada/"]).path == "/home/ada/.config/qapital-tui")
    }
}
