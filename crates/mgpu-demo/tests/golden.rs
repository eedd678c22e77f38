//! The demonstrations' exact text (golden), on the CPU backend and on the CTA simulator
//! (the GPU kernels), and the binary's whole output.

use mgpu::Backend;
use mgpu_demo::{
    bulk_insert_demo, bulk_remove_demo, interval_expand_demo, interval_move_demo,
    load_balance_demo, print_array, reduce_by_key_demo, scan_demo, seg_reduce_demo, sort_keys_demo,
    sort_pairs_demo,
};
use std::process::Command;

/// The seed 001 counts, their exclusive scan and total, in the seeds' layout.
const SCAN_DEMO: &str = "
SCAN DEMONSTRATION:

Object counts
    0:     0    3    5    2    1    3    1    5    4    5
   10:     2    5    4    0    2    3    1    4    0    5
   20:     4    3    2    4    2    4    3    3    0    3
   30:     1    4    4    4    4    2    0    3    0    5
   40:     0    0    0    0    2    2    3    0    4    4

Scan of object counts:
    0:     0    0    3    8   10   11   14   15   20   24
   10:    29   31   36   40   40   42   45   46   50   50
   20:    55   59   62   64   68   70   74   77   80   80
   30:    83   84   88   92   96  100  102  102  105  105
   40:   110  110  110  110  110  112  114  117  117  121
Total:  125
";

/// Seed 001's `DemoLBS`: the counts, their scan and total, and the 125 object references.
const LBS_DEMO: &str = "

LOAD-BALANCING SEARCH DEMONSTRATION:

Object counts
    0:     0    3    5    2    1    3    1    5    4    5
   10:     2    5    4    0    2    3    1    4    0    5
   20:     4    3    2    4    2    4    3    3    0    3
   30:     1    4    4    4    4    2    0    3    0    5
   40:     0    0    0    0    2    2    3    0    4    4

Scan of object counts:
    0:     0    0    3    8   10   11   14   15   20   24
   10:    29   31   36   40   40   42   45   46   50   50
   20:    55   59   62   64   68   70   74   77   80   80
   30:    83   84   88   92   96  100  102  102  105  105
   40:   110  110  110  110  110  112  114  117  117  121
Total:  125

Object references:
    0:     1    1    1    2    2    2    2    2    3    3
   10:     4    5    5    5    6    7    7    7    7    7
   20:     8    8    8    8    9    9    9    9    9   10
   30:    10   11   11   11   11   11   12   12   12   12
   40:    14   14   15   15   15   16   17   17   17   17
   50:    19   19   19   19   19   20   20   20   20   21
   60:    21   21   22   22   23   23   23   23   24   24
   70:    25   25   25   25   26   26   26   27   27   27
   80:    29   29   29   30   31   31   31   31   32   32
   90:    32   32   33   33   33   33   34   34   34   34
  100:    35   35   37   37   37   39   39   39   39   39
  110:    44   44   45   45   46   46   46   48   48   48
  120:    48   49   49   49   49
";

/// Seed 000's `DemoIntervalExpand`, as printed in the seed.
const EXPAND_DEMO: &str = "

INTERVAL-EXPAND DEMONSTRATION:

Expand counts:
    0:     2    5    7   16    0    1    0    0   14   10
   10:     3   14    2    1   11    2    1    0    5    6

Expand values:
    0:     1    1    2    3    5    8   13   21   34   55
   10:    89  144  233  377  610  987 1597 2584 4181 6765

Expanded data:
    0:     1    1    1    1    1    1    1    2    2    2
   10:     2    2    2    2    3    3    3    3    3    3
   20:     3    3    3    3    3    3    3    3    3    3
   30:     8   34   34   34   34   34   34   34   34   34
   40:    34   34   34   34   34   55   55   55   55   55
   50:    55   55   55   55   55   89   89   89  144  144
   60:   144  144  144  144  144  144  144  144  144  144
   70:   144  144  233  233  377  610  610  610  610  610
   80:   610  610  610  610  610  610  987  987 1597 4181
   90:  4181 4181 4181 4181 6765 6765 6765 6765 6765 6765
";

/// Seed 000's `DemoIntervalMove`, as printed in the seed.
const MOVE_DEMO: &str = "

INTERVAL-MOVE DEMONSTRATION:

Interval counts:
    0:     3    9    1    9    8    5   10    2    5    2
   10:     8    6    5    2    4    0    8    2    5    6

Interval gather:
    0:    75   86   17    2   67   24   37   11   95   35
   10:    52   18   47    0   13   75   78   60   62   29

Interval scatter:
    0:    10   80   99   27   41   71   15    0   36   13
   10:    89   49   66   97   76   76    2   25   61   55

Moved data:
    0:    11   12   78   79   80   81   82   83   84   85
   10:    75   76   77   35   36   37   38   39   40   41
   20:    42   43   44   45   46   60   61    2    3    4
   30:     5    6    7    8    9   10   95   96   97   98
   40:    99   67   68   69   70   71   72   73   74   18
   50:    19   20   21   22   23   29   30   31   32   33
   60:    34   62   63   64   65   66   47   48   49   50
   70:    51   24   25   26   27   28   13   14   15   16
   80:    86   87   88   89   90   91   92   93   94   52
   90:    53   54   55   56   57   58   59    0    1   17
";

/// Seed 003's `DemoBulkRemove`: 0 to 99 without every 3rd element.
const REMOVE_DEMO: &str = "

BULK REMOVE DEMONSTRATION:

Input array:
    0:     0    1    2    3    4    5    6    7    8    9
   10:    10   11   12   13   14   15   16   17   18   19
   20:    20   21   22   23   24   25   26   27   28   29
   30:    30   31   32   33   34   35   36   37   38   39
   40:    40   41   42   43   44   45   46   47   48   49
   50:    50   51   52   53   54   55   56   57   58   59
   60:    60   61   62   63   64   65   66   67   68   69
   70:    70   71   72   73   74   75   76   77   78   79
   80:    80   81   82   83   84   85   86   87   88   89
   90:    90   91   92   93   94   95   96   97   98   99

Removing every 3rd element:
    0:     1    2    4    5    7    8   10   11   13   14
   10:    16   17   19   20   22   23   25   26   28   29
   20:    31   32   34   35   37   38   40   41   43   44
   30:    46   47   49   50   52   53   55   56   58   59
   40:    61   62   64   65   67   68   70   71   73   74
   50:    76   77   79   80   82   83   85   86   88   89
   60:    91   92   94   95   97   98
";

/// Seed 003's `DemoBulkInsert`: 1000, 1010, ... before every 5th element from item 2.
const INSERT_DEMO: &str = "

BULK INSERT DEMONSTRATION:

Input array:
    0:     0    1    2    3    4    5    6    7    8    9
   10:    10   11   12   13   14   15   16   17   18   19
   20:    20   21   22   23   24   25   26   27   28   29
   30:    30   31   32   33   34   35   36   37   38   39
   40:    40   41   42   43   44   45   46   47   48   49
   50:    50   51   52   53   54   55   56   57   58   59
   60:    60   61   62   63   64   65   66   67   68   69
   70:    70   71   72   73   74   75   76   77   78   79
   80:    80   81   82   83   84   85   86   87   88   89
   90:    90   91   92   93   94   95   96   97   98   99

Inserting before every 5th element starting at item 2:
    0:     0    1 1000    2    3    4    5    6 1010    7
   10:     8    9   10   11 1020   12   13   14   15   16
   20:  1030   17   18   19   20   21 1040   22   23   24
   30:    25   26 1050   27   28   29   30   31 1060   32
   40:    33   34   35   36 1070   37   38   39   40   41
   50:  1080   42   43   44   45   46 1090   47   48   49
   60:    50   51 1100   52   53   54   55   56 1110   57
   70:    58   59   60   61 1120   62   63   64   65   66
   80:  1130   67   68   69   70   71 1140   72   73   74
   90:    75   76 1150   77   78   79   80   81 1160   82
  100:    83   84   85   86 1170   87   88   89   90   91
  110:  1180   92   93   94   95   96 1190   97   98   99
";

/// Seed 002's `DemoSegReduceCsr`, as the seed printed it (its random values included).
const SEGREDUCE_DEMO: &str = "

SEGMENTED REDUCE-CSR DEMONSTRATION

Segment starts (CSR):
    0:     0    9   19   25   71   87   97

Values:
    0:     1    5    5    1    2    5    1    1    4    4
   10:     5    3    4    4    4    2    2    4    2    5
   20:     5    1    5    1    4    5    1    4    2    2
   30:     2    3    3    1    4    2    4    2    1    2
   40:     5    1    2    2    3    1    2    5    4    1
   50:     2    5    4    2    4    1    3    2    4    4
   60:     4    4    4    3    4    4    1    5    1    1
   70:     3    2    3    1    4    1    1    4    4    4
   80:     3    5    5    3    2    1    5    5    4    5
   90:     4    2    2    3    5    5    1    4    1    5

Reduced values:
    0:    25   34   21  129   48   36   10
";

/// Seed 002's `DemoReduceByKey`, as the seed printed it (its random keys and values
/// included).
const RBK_DEMO: &str = "

REDUCE BY KEY DEMONSTRATION

Keys:
    0:     0    0    0    1    1    1    2    2    2    2
   10:     2    2    2    2    2    2    2    2    2    2
   20:     2    2    2    2    2    2    2    2    2    2
   30:     2    2    2    2    2    3    3    3    3    3
   40:     3    3    3    4    4    5    5    5    5    5
   50:     5    5    5    5    5    5    6    6    6    6
   60:     6    6    6    6    6    6    6    6    6    7
   70:     8    8    8    8    8    8    8    8    8    8
   80:     8    8    8    8    8    8    8    8    8    8
   90:     8    8    8    8    8    8    8    8    8    8

Values:
    0:     2    4    2    4    1    5    3    2    4    4
   10:     2    5    2    2    5    3    3    5    3    3
   20:     2    2    1    4    4    2    1    4    1    3
   30:     1    3    2    4    2    5    1    2    1    5
   40:     4    4    1    5    4    1    5    2    3    4
   50:     1    2    4    2    5    4    3    4    5    3
   60:     3    4    2    1    1    2    3    3    2    2
   70:     2    4    1    5    5    2    2    4    3    1
   80:     3    5    4    1    2    3    2    2    5    5
   90:     1    3    3    3    4    5    5    2    4    3

Reduced keys:
    0:     0    1    2    3    4    5    6    7    8

Reduced values:
    0:     8   10   82   23    9   33   36    2   94
";

/// Seed 004's `DemoSortKeys`, as the seed printed it (its random input included).
const SORT_KEYS_DEMO: &str = "

SORT KEYS DEMONSTRATION:

Input:
    0:     5   95   68   53    4   87    7   93   52   66
   10:     9   28   81    6   81   23   72   70   14   19
   20:    65   42   51   93   97   14   64   64   80   47
   30:    45   43   43   24   82   50    8   90   13    7
   40:    17   71   39   61   83   18   80   39    6   27
   50:    39   85   52   90   41   61   65   18   62   51
   60:    29   82   43   35    1   81   98   29   16   17
   70:    10   49   37   19   19   86   48   20   33   61
   80:    95   87   92   39    5   94   73   16   26   97
   90:    42   56   54   59   94   13   41   56   98   55

Sorted output:
    0:     1    4    5    5    6    6    7    7    8    9
   10:    10   13   13   14   14   16   16   17   17   18
   20:    18   19   19   19   20   23   24   26   27   28
   30:    29   29   33   35   37   39   39   39   39   41
   40:    41   42   42   43   43   43   45   47   48   49
   50:    50   51   51   52   52   53   54   55   56   56
   60:    59   61   61   61   62   64   64   65   65   66
   70:    68   70   71   72   73   80   80   81   81   81
   80:    82   82   83   85   86   87   87   90   90   92
   90:    93   93   94   94   95   95   97   97   98   98
";

/// Seed 004's `DemoSortPairs`, as the seed printed it (its random keys included), with
/// the first label its code prints (`Input keys:`; the page's printout shows `Input:`).
const SORT_PAIRS_DEMO: &str = "

SORT PAIRS DEMONSTRATION:

Input keys:
    0:    30   31   70   12   66   73   53   24   69   82
   10:    66   18   17   31   12   88   99   67   17   73
   20:     3    6   56   13   88    8   66    0   19   45
   30:    36   63   46   52   98   49   15   33   85   25
   40:    64   23   37   17   19   59   42   72   48   87
   50:    12   70   58   23   22   47   38    1   58   74
   60:    25   65   29    7   61   47   26   99   82   53
   70:    98   89   73   77   34   20   58   90   10   37
   80:    90   84   87   32   81   32   26   65   59   58
   90:     2    4   42   76   31   49   16   48   17   42

Sorted keys:
    0:     0    1    2    3    4    6    7    8   10   12
   10:    12   12   13   15   16   17   17   17   17   18
   20:    19   19   20   22   23   23   24   25   25   26
   30:    26   29   30   31   31   31   32   32   33   34
   40:    36   37   37   38   42   42   42   45   46   47
   50:    47   48   48   49   49   52   53   53   56   58
   60:    58   58   58   59   59   61   63   64   65   65
   70:    66   66   66   67   69   70   70   72   73   73
   80:    73   74   76   77   81   82   82   84   85   87
   90:    87   88   88   89   90   90   98   98   99   99

Sorted values:
    0:    27   57   90   20   91   21   63   25   78    3
   10:    14   50   23   36   96   12   18   43   98   11
   20:    28   44   75   54   41   53    7   39   60   66
   30:    86   62    0    1   13   94   83   85   37   74
   40:    30   42   79   56   46   92   99   29   32   55
   50:    65   48   97   35   95   33    6   69   22   52
   60:    58   76   89   45   88   64   31   40   61   87
   70:     4   10   26   17    8    2   51   47    5   19
   80:    72   59   93   73   84    9   68   81   38   49
   90:    82   15   24   71   77   80   34   70   16   67
";

/// A demonstration: runs on a backend, returns its text.
type DemoFn = fn(&Backend) -> mgpu::Result<String>;

/// Every demonstration with its golden text, in the binary's order.
const GOLDEN: [(&str, DemoFn, &str); 10] = [
    ("scan", scan_demo, SCAN_DEMO),
    ("lbs", load_balance_demo, LBS_DEMO),
    ("expand", interval_expand_demo, EXPAND_DEMO),
    ("move", interval_move_demo, MOVE_DEMO),
    ("remove", bulk_remove_demo, REMOVE_DEMO),
    ("insert", bulk_insert_demo, INSERT_DEMO),
    ("segreduce", seg_reduce_demo, SEGREDUCE_DEMO),
    ("reducebykey", reduce_by_key_demo, RBK_DEMO),
    ("sortkeys", sort_keys_demo, SORT_KEYS_DEMO),
    ("sortpairs", sort_pairs_demo, SORT_PAIRS_DEMO),
];

/// Runs every demonstration of [`GOLDEN`] on `backend` and compares its exact text.
fn assert_golden_demos(backend: &Backend) {
    for (name, demo, golden) in GOLDEN {
        let text = demo(backend).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(text, golden, "demonstration `{name}`");
    }
}

#[test]
fn demos_on_the_cpu() {
    assert_golden_demos(&Backend::cpu());
}

#[test]
fn demos_on_the_simulator() {
    assert_golden_demos(&Backend::simulator());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn demos_on_the_gpu() {
    assert_golden_demos(&Backend::cuda(0).expect("needs a CUDA GPU"));
}

/// The binary prints the backend line of `Backend::detect()` and then every
/// demonstration; the text after the first line is the same on every backend.
#[test]
fn binary_prints_the_backend_then_the_demonstrations() {
    let out = Command::new(env!("CARGO_BIN_EXE_mgpu-demo"))
        .output()
        .expect("run mgpu-demo");
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (first, rest) = stdout.split_once('\n').unwrap();
    assert_eq!(first, mgpu_demo::backend_line(&Backend::detect()));
    if let Backend::Cpu = Backend::detect() {
        assert_eq!(first, "Backend: no CUDA device: CPU backend");
    }
    let all: String = GOLDEN.iter().map(|(_, _, golden)| *golden).collect();
    assert_eq!(rest, all);
}

#[test]
fn binary_runs_named_demonstrations_and_refuses_unknown_ones() {
    let bin = env!("CARGO_BIN_EXE_mgpu-demo");
    for (name, golden) in [
        ("scan", SCAN_DEMO),
        ("lbs", LBS_DEMO),
        ("sortpairs", SORT_PAIRS_DEMO),
    ] {
        let out = Command::new(bin).arg(name).output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.ends_with(golden), "{name}: {stdout}");
    }
    let out = Command::new(bin).arg("nope").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "mgpu-demo: unknown demonstration `nope`; known: scan, lbs, expand, move, remove, insert, \
         segreduce, reducebykey, sortkeys, sortpairs\n"
    );
}

#[test]
fn print_array_full_rows() {
    let v: Vec<u32> = (0..20).collect();
    assert_eq!(
        print_array(&v, 10),
        "    0:     0    1    2    3    4    5    6    7    8    9\n   \
         10:    10   11   12   13   14   15   16   17   18   19\n"
    );
}

#[test]
fn print_array_short_and_ragged() {
    assert_eq!(print_array::<i32>(&[], 10), "");
    assert_eq!(print_array(&[7], 10), "    0:     7\n");
    assert_eq!(print_array(&[1, 2, 3], 10), "    0:     1    2    3\n");
    assert_eq!(
        print_array(&[1, 22, 333, 4444, 55555], 2),
        "    0:     1   22\n    2:   333 4444\n    4:  55555\n"
    );
    assert_eq!(print_array(&[-5i64, 6], 1), "    0:    -5\n    1:     6\n");
    // Indices wider than 5 columns push the row right, as printf does.
    let many = vec![0u8; 100_001];
    let text = print_array(&many, 100_000);
    assert!(
        text.ends_with("\n100000:     0\n"),
        "{}",
        &text[text.len() - 30..]
    );
}

#[test]
#[should_panic(expected = "at least one column")]
fn print_array_needs_a_column() {
    print_array(&[1], 0);
}
