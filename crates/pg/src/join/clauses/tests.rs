//! The typed-expression readers and the LIKE matcher, over conditions the front end reads.
/// The kNN point as EXPLAIN's Order By line prints it (float8out's shortest text),
/// from each spelling the model reads.
#[test]
fn knn_points_print_as_postgresql_does() {
    use super::{distance_to_point, float8_text};
    use costlab_model::expr::{BinOp, Column, Expr as T};
    use costlab_model::plan::Name;
    let col = |n: &str| {
        T::Column(Column {
            table: Some(0),
            qualifier: None,
            name: Name::from(n),
        })
    };
    let s = |v: &str| T::String(Name::from(v));
    let num = |v: &str| T::Number(Name::from(v));
    let fgeo = T::Call {
        name: Name::from("fgeo"),
        args: vec![col("a")],
        distinct: false,
    };
    for (key, point, want) in [
        (
            col("st_loc"),
            T::Typed {
                ty: Name::from("point"),
                value: Name::from("(500,500)"),
            },
            Some(("st_loc", Some((500.0, 500.0)))),
        ),
        (
            fgeo,
            T::Cast {
                expr: Box::new(s("( 1.50 , -2)")),
                ty: Name::from("point"),
            },
            Some(("fgeo ( a )", Some((1.5, -2.0)))),
        ),
        (
            col("st_loc"),
            T::Call {
                name: Name::from("point"),
                args: vec![num("0.5"), num("2")],
                distinct: false,
            },
            Some(("st_loc", Some((0.5, 2.0)))),
        ),
        (col("st_loc"), col("other_loc"), None),
        (
            col("st_loc"),
            T::Typed {
                ty: Name::from("point"),
                value: Name::from("(1,2,3)"),
            },
            Some(("st_loc", None)),
        ),
    ] {
        let e = T::Binary {
            op: BinOp::Distance,
            left: Box::new(key),
            right: Box::new(point),
        };
        let got = distance_to_point(&e);
        assert_eq!(got.as_ref().map(|(k, p)| (k.as_str(), *p)), want, "{e}");
    }
    for (x, want) in [
        (500.0, "500"),
        (-2.0, "-2"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (1e20, "1e+20"),
        (1.5e-5, "1.5e-05"),
        (0.0, "0"),
    ] {
        assert_eq!(float8_text(x), want);
    }
}
use super::like_match;
use proptest::prelude::*;

/// The typed condition of `where_` over DBT3's supplier, part, customer and nation
/// (read by the front end, as every query is).
fn typed(where_: &str) -> costlab_model::expr::Expr {
    use std::sync::OnceLock;
    static T: OnceLock<Vec<costlab_model::catalog::Table>> = OnceLock::new();
    let tables = T.get_or_init(|| costlab_workload::dbt3::catalog::dbt3(0.01).unwrap().pg);
    let sql = format!("SELECT * FROM supplier, part, customer, nation WHERE {where_}");
    let b = costlab_sql::read_query(&sql, costlab_sql::Dialect::Postgres, tables).unwrap();
    assert_eq!(b.filters.len(), 1, "{where_}");
    b.filters[0].expr.clone()
}

/// An expression compared with constants is found with its canonical text (casts
/// and a lone operand's parentheses dropped); a bare column, a column on the right or
/// more after the constant is not such a comparison.
#[test]
fn expressions_compared_with_constants() {
    use super::{canonical_expression, compared_expression, ExprTest, Lit, Op};
    let (e, t) = compared_expression(&typed("lower((s_phone)::text) < '15'::text")).unwrap();
    assert_eq!(e, canonical_expression("lower((s_phone)::text)"));
    assert_eq!(e, "lower ( s_phone )");
    assert_eq!(t, ExprTest::Cmp(Op::Lt, Lit::Text("15".into())));
    let (e, t) = compared_expression(&typed("lower(s_name) IN ('a', 'b')")).unwrap();
    assert_eq!(e, "lower ( s_name )");
    assert_eq!(
        t,
        ExprTest::In(vec![Lit::Text("a".into()), Lit::Text("b".into())])
    );
    let (_, t) = compared_expression(&typed("abs(s_acctbal) BETWEEN 1 AND 2")).unwrap();
    assert_eq!(t, ExprTest::Between(Lit::Num(1.0), Lit::Num(2.0)));
    assert_eq!(compared_expression(&typed("s_phone < p_name")), None);
    assert_eq!(
        compared_expression(&typed("lower(s_name) < lower(p_name)")),
        None
    );
    assert_eq!(compared_expression(&typed("abs(s_acctbal) < 1 + 2")), None);
    let (e, _) = compared_expression(&typed("(s_acctbal + p_size) > 5")).unwrap();
    assert_eq!(e, "( s_acctbal + p_size )");
}

/// Calls are named once each, nested ones too; the comparison found is the top
/// level's, not one inside a call or an operand; the same column name on two table
/// references stays two columns.
#[test]
fn calls_and_the_top_level_comparison() {
    assert_eq!(
        super::calls_of(&typed("upper(lower(s_phone)) IN ('1', '2')")),
        ["upper", "lower"]
    );
    for (text, want) in [
        ("lower(s_phone) = '1'", Some("=")),
        ("lower(s_name) || n_name > '5'", Some(">")),
        (
            "substring(c_phone from 1 for 2) in ('13', '31')",
            Some("IN"),
        ),
        ("lower(s_name) NOT LIKE '1%'", Some("NOT LIKE")),
        ("s_name IS NOT NULL OR p_name IS NULL", Some("IS")),
    ] {
        assert_eq!(
            super::top_comparison(&typed(text)).as_deref(),
            want,
            "{text}"
        );
    }
    let e = typed("s_nationkey + 1 = c_nationkey");
    let tables: Vec<_> = e.columns().iter().map(|c| c.table).collect();
    assert_eq!(tables, [Some(0), Some(2)]);
}

#[test]
fn like_matches_runs_and_single_characters() {
    for (pat, s, want) in [
        ("forest%", "forest green lace", true),
        ("forest%", "a forest", false),
        ("%green%", "forest green lace", true),
        ("%green%", "greed", false),
        ("_orest%", "forest", true),
        ("f_rest", "forest", true),
        ("f_rest", "forrest", false),
        ("%", "", true),
        ("_", "", false),
        ("%BRASS", "LARGE BRUSHED BRASS", true),
        // Characters beyond ASCII count as one each.
        ("caf_", "café", true),
        ("%é%", "crème brûlée", true),
        ("cr_me%", "crème", true),
    ] {
        assert_eq!(like_match(pat, s), want, "{pat} LIKE {s}");
    }
}

proptest! {
    /// The byte fast path for ASCII agrees with matching by characters.
    #[test]
    fn ascii_and_character_matching_agree(pat in "[ab%_é]{0,6}", s in "[abé]{0,8}") {
        let p: Vec<char> = pat.chars().collect();
        let t: Vec<char> = s.chars().collect();
        prop_assert_eq!(like_match(&pat, &s), super::like_match_in(&p, &t, '%', '_'));
    }
}
