package mysqldump

import (
	"strings"
	"testing"
)

// what mariadb-dump writes, in small: conditional comments, LOCK TABLES,
// DROP TABLE, extended INSERTs with quotes, semicolons and escapes inside
// strings, a trigger under DELIMITER ;;
const dump = "-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB\n" +
	"/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n" +
	"/*!40101 SET NAMES utf8mb4 */;\n" +
	"\n--\n-- Table structure for table `products`\n--\n\n" +
	"DROP TABLE IF EXISTS `products`;\n" +
	"/*!40101 SET @saved_cs_client     = @@character_set_client */;\n" +
	"CREATE TABLE `products` (\n" +
	"  `id` int(11) NOT NULL AUTO_INCREMENT,\n" +
	"  `name` varchar(255) NOT NULL DEFAULT '',\n" +
	"  `price` decimal(10,2) DEFAULT NULL COMMENT 'in (rub), really',\n" +
	"  `descr` text,\n" +
	"  `group_id` int(11) NOT NULL,\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `ix_group` (`group_id`),\n" +
	"  FULLTEXT KEY `ft_name` (`name`,`descr`),\n" +
	"  CONSTRAINT `fk_group` FOREIGN KEY (`group_id`) REFERENCES `groups` (`id`)\n" +
	") ENGINE=MyISAM AUTO_INCREMENT=4 DEFAULT CHARSET=utf8mb3 ROW_FORMAT=DYNAMIC;\n" +
	"/*!40101 SET character_set_client = @saved_cs_client */;\n\n" +
	"LOCK TABLES `products` WRITE;\n" +
	"/*!40000 ALTER TABLE `products` DISABLE KEYS */;\n" +
	"INSERT INTO `products` VALUES (1,'a; b','1.00','it\\'s \\\"fine\\\"\\n-- not a comment',7),(2,'/* no */','2.00',NULL,7),(3,'x','3.00','',8);\n" +
	"/*!40000 ALTER TABLE `products` ENABLE KEYS */;\n" +
	"UNLOCK TABLES;\n" +
	"DELIMITER ;;\n" +
	"/*!50003 CREATE*/ /*!50003 TRIGGER `t` BEFORE INSERT ON `products` FOR EACH ROW BEGIN SET NEW.price = 1; END */;;\n" +
	"DELIMITER ;\n" +
	"/* a plain comment; with a semicolon */\n" +
	"# and a hash comment;\n" +
	"/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n"

func TestScannerSplitsARealDumpsStatements(t *testing.T) {
	s := NewScanner(strings.NewReader(dump), "shop.sql")
	var got []Statement
	for s.Scan() {
		got = append(got, s.Statement())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	starts := []string{"/*!40101 SET @OLD", "/*!40101 SET NAMES", "DROP TABLE", "/*!40101 SET @saved", "CREATE TABLE", "/*!40101 SET character_set_client",
		"LOCK TABLES", "/*!40000 ALTER TABLE `products` DISABLE", "INSERT INTO", "/*!40000 ALTER TABLE `products` ENABLE", "UNLOCK TABLES",
		"/*!50003 CREATE*/ /*!50003 TRIGGER", "/*!40101 SET CHARACTER_SET_CLIENT"}
	if len(got) != len(starts) {
		for _, g := range got {
			t.Logf("line %d: %.60q", g.Line, g.Text)
		}
		t.Fatalf("%d statements, want %d", len(got), len(starts))
	}
	for i, st := range got {
		if !strings.HasPrefix(st.Text, starts[i]) {
			t.Errorf("statement %d (line %d) %.50q, want it to start %q", i, st.Line, st.Text, starts[i])
		}
	}
	if ins := got[8]; ins.Line != 26 || !strings.HasSuffix(ins.Text, "(3,'x','3.00','',8)") || !strings.Contains(ins.Text, "-- not a comment") {
		t.Errorf("the INSERT (line %d): %q", ins.Line, ins.Text)
	}
	if s.Bytes != int64(len(dump)) {
		t.Errorf("read %d bytes of %d", s.Bytes, len(dump))
	}
}

func TestScannerRefusesWhatIsNotSQL(t *testing.T) {
	for name, in := range map[string]string{"binary": "PK\x03\x04\x00\x00", "open quote": "INSERT INTO t VALUES ('never closed);\n", "open comment": "SELECT 1; /* never closed"} {
		s := NewScanner(strings.NewReader(in), "x.sql")
		for s.Scan() {
		}
		if s.Err() == nil || !strings.Contains(s.Err().Error(), "x.sql:") {
			t.Errorf("%s: %v, want an error naming the file and line", name, s.Err())
		}
	}
}

func TestMoveToEachEngine(t *testing.T) {
	s := NewScanner(strings.NewReader(dump), "shop.sql")
	var create string
	for s.Scan() {
		if IsCreateTable(s.Statement().Text) {
			create = s.Statement().Text
		}
	}
	ct, err := ParseCreateTable(create)
	if err != nil {
		t.Fatal(err)
	}
	if ct.Name != "products" || len(ct.Columns) != 5 || len(ct.Keys) != 4 {
		t.Fatalf("parsed %q: %d columns, keys %+v", ct.Name, len(ct.Columns), ct.Keys)
	}
	inno, err := ct.MoveTo("innodb", "", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(inno.Create, "ENGINE=innodb") || strings.Contains(inno.Create, "MyISAM") || strings.Contains(inno.Create, "ROW_FORMAT") ||
		!strings.Contains(inno.Create, "DEFAULT CHARSET=utf8mb3") || !strings.Contains(inno.Create, "FOREIGN KEY") || !strings.Contains(inno.Create, "'in (rub), really'") {
		t.Errorf("innodb:\n%s", inno.Create)
	}
	if !strings.Contains(inno.AddKeys, "ADD KEY `ix_group`") || !strings.Contains(inno.AddKeys, "ADD FULLTEXT KEY") || strings.Contains(inno.Create, "ix_group") {
		t.Errorf("innodb's keys after the load: %q", inno.AddKeys)
	}
	rocks, err := ct.MoveTo("rocksdb", "", true)
	if err != nil {
		t.Fatal(err)
	}
	if rocks.AddKeys != "" || strings.Contains(rocks.Create, "FULLTEXT") || strings.Contains(rocks.Create, "FOREIGN") || len(rocks.Notes) != 2 {
		t.Errorf("rocksdb:\n%s\nadd %q notes %q", rocks.Create, rocks.AddKeys, rocks.Notes)
	}
	aria, _ := ct.MoveTo("aria", "TRANSACTIONAL=0", false)
	if !strings.Contains(aria.Create, "ENGINE=aria TRANSACTIONAL=0") || !strings.Contains(aria.Create, "ix_group") || len(aria.Notes) != 1 {
		t.Errorf("aria:\n%s\nnotes %q", aria.Create, aria.Notes)
	}
	if _, err := ct.MoveTo("memory", "", true); err == nil || !strings.Contains(err.Error(), "table products: MEMORY cannot hold column descr (TEXT)") {
		t.Errorf("memory: %v", err)
	}
	if _, err := ParseCreateTable("CREATE TABLE `t` (`a` int, "); err == nil || !strings.Contains(err.Error(), "never closed") {
		t.Errorf("a cut CREATE TABLE: %v", err)
	}
}
