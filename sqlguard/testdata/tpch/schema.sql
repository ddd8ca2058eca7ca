-- TPC-H schema (TPC-H specification, clause 1.4), written for this project's
-- guard tests. Every name is qualified with the schema "tpch" so the DDL does
-- not depend on search_path. The tables stay empty: the tests only EXPLAIN.
CREATE SCHEMA tpch;

CREATE TABLE tpch.region (
    r_regionkey integer     NOT NULL PRIMARY KEY,
    r_name      char(25)    NOT NULL,
    r_comment   varchar(152)
);

CREATE TABLE tpch.nation (
    n_nationkey integer     NOT NULL PRIMARY KEY,
    n_name      char(25)    NOT NULL,
    n_regionkey integer     NOT NULL REFERENCES tpch.region,
    n_comment   varchar(152)
);

CREATE TABLE tpch.part (
    p_partkey     integer        NOT NULL PRIMARY KEY,
    p_name        varchar(55)    NOT NULL,
    p_mfgr        char(25)       NOT NULL,
    p_brand       char(10)       NOT NULL,
    p_type        varchar(25)    NOT NULL,
    p_size        integer        NOT NULL,
    p_container   char(10)       NOT NULL,
    p_retailprice decimal(15, 2) NOT NULL,
    p_comment     varchar(23)    NOT NULL
);

CREATE TABLE tpch.supplier (
    s_suppkey   integer        NOT NULL PRIMARY KEY,
    s_name      char(25)       NOT NULL,
    s_address   varchar(40)    NOT NULL,
    s_nationkey integer        NOT NULL REFERENCES tpch.nation,
    s_phone     char(15)       NOT NULL,
    s_acctbal   decimal(15, 2) NOT NULL,
    s_comment   varchar(101)   NOT NULL
);

CREATE TABLE tpch.partsupp (
    ps_partkey    integer        NOT NULL REFERENCES tpch.part,
    ps_suppkey    integer        NOT NULL REFERENCES tpch.supplier,
    ps_availqty   integer        NOT NULL,
    ps_supplycost decimal(15, 2) NOT NULL,
    ps_comment    varchar(199)   NOT NULL,
    PRIMARY KEY (ps_partkey, ps_suppkey)
);

CREATE TABLE tpch.customer (
    c_custkey    integer        NOT NULL PRIMARY KEY,
    c_name       varchar(25)    NOT NULL,
    c_address    varchar(40)    NOT NULL,
    c_nationkey  integer        NOT NULL REFERENCES tpch.nation,
    c_phone      char(15)       NOT NULL,
    c_acctbal    decimal(15, 2) NOT NULL,
    c_mktsegment char(10)       NOT NULL,
    c_comment    varchar(117)   NOT NULL
);

CREATE TABLE tpch.orders (
    o_orderkey      integer        NOT NULL PRIMARY KEY,
    o_custkey       integer        NOT NULL REFERENCES tpch.customer,
    o_orderstatus   char(1)        NOT NULL,
    o_totalprice    decimal(15, 2) NOT NULL,
    o_orderdate     date           NOT NULL,
    o_orderpriority char(15)       NOT NULL,
    o_clerk         char(15)       NOT NULL,
    o_shippriority  integer        NOT NULL,
    o_comment       varchar(79)    NOT NULL
);

CREATE TABLE tpch.lineitem (
    l_orderkey      integer        NOT NULL REFERENCES tpch.orders,
    l_partkey       integer        NOT NULL,
    l_suppkey       integer        NOT NULL,
    l_linenumber    integer        NOT NULL,
    l_quantity      decimal(15, 2) NOT NULL,
    l_extendedprice decimal(15, 2) NOT NULL,
    l_discount      decimal(15, 2) NOT NULL,
    l_tax           decimal(15, 2) NOT NULL,
    l_returnflag    char(1)        NOT NULL,
    l_linestatus    char(1)        NOT NULL,
    l_shipdate      date           NOT NULL,
    l_commitdate    date           NOT NULL,
    l_receiptdate   date           NOT NULL,
    l_shipinstruct  char(25)       NOT NULL,
    l_shipmode      char(10)       NOT NULL,
    l_comment       varchar(44)    NOT NULL,
    PRIMARY KEY (l_orderkey, l_linenumber),
    FOREIGN KEY (l_partkey, l_suppkey) REFERENCES tpch.partsupp
);
