// libherald_pmpi's check of the MPI library a process runs (src/pmpi/mpi_library.hpp): the family of real
// MPI_Get_library_version texts, and every pairing of a library built for one with a process running another.
#include "mpi_library.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace herald::pmpi {
namespace {

struct Library {
  const char* text;  // what MPI_Get_library_version writes (configure lines shortened)
  MpiFamily family;
  const char* name;  // how the message names it
};

// Real texts, each as its library writes it.
const std::vector<Library>& libraries() {
  static const std::vector<Library> table = {
      {"Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022",
       MpiFamily::open_mpi, "Open MPI v4.1.4"},
      {"Open MPI v4.1.1, package: Open MPI user@host Distribution, ident: 4.1.1, repo rev: v4.1.1, Apr 24, 2021",
       MpiFamily::open_mpi, "Open MPI v4.1.1"},
      {"Open MPI v5.0.10, package: Open MPI brew@Sequoia-arm64.local Distribution, ident: 5.0.10, repo rev: "
       "v5.0.10, Feb 23, 2026",
       MpiFamily::open_mpi, "Open MPI v5.0.10"},
      {"MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\nMPICH ABI:\t14:2:2\nMPICH "
       "Device:\tch4:ucx\nMPICH configure:\t--build=x86_64-linux-gnu --prefix=/usr --with-device=ch4:ucx\n",
       MpiFamily::mpich, "MPICH Version: 4.0.2"},
      {"MPICH Version:\t3.4.2\nMPICH Release date:\tWed May 26 15:51:40 CDT 2021\nMPICH ABI:\t13:11:1\nMPICH "
       "Device:\tch4:ofi\n",
       MpiFamily::mpich, "MPICH Version: 3.4.2"},
      {"MPICH Version:\t3.3.2\nMPICH Release date:\tTue Nov 12 21:23:16 CST 2019\nMPICH ABI:\t13:8:1\nMPICH "
       "Device:\tch3:nemesis\n",
       MpiFamily::mpich, "MPICH Version: 3.3.2"},
      {"MPICH Version:      4.1a1\nMPICH Release date: unreleased development copy\nMPICH ABI:          0:0:0\n",
       MpiFamily::mpich, "MPICH Version: 4.1a1"},
      // MPICH's derivatives share its ABI (the MPICH ABI Compatibility Initiative): MPICH's family.
      {"MVAPICH2 Version      :\t2.3.5\nMVAPICH2 Release date :\tMon November 30 22:00:00 EST 2020\nMVAPICH2 "
       "Device       :\tch3:mrail\n",
       MpiFamily::mpich, "MVAPICH2 Version : 2.3.5"},
      {"Intel(R) MPI Library 2019 Update 6 for Linux* OS\n\n", MpiFamily::mpich,
       "Intel(R) MPI Library 2019 Update 6 for Linux* OS"},
      {"MPI VERSION    : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)\nMPI BUILD INFO : Sun Feb 26 16:42 2023 "
       "(git hash aecd99f)\n",
       MpiFamily::mpich, "MPI VERSION : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)"},
      {"MPI VERSION    : CRAY MPICH version 7.7.14 (ANL base 3.2)\nMPI BUILD INFO : Built Tue May 19 13:54:36 2020 "
       "(git hash e25eab9) MT-G\n\n",
       MpiFamily::mpich, "MPI VERSION : CRAY MPICH version 7.7.14 (ANL base 3.2)"},
      // Neither family: never refused.
      {"SMPI Version 3.32. Copyright The SimGrid Team 2007-2022", MpiFamily::unknown,
       "SMPI Version 3.32. Copyright The SimGrid Team 2007-2022"},
      {"", MpiFamily::unknown, ""},
  };
  return table;
}

TEST(MpiLibrary, FamilyOfRealVersionTexts) {
  for (const Library& library : libraries()) {
    EXPECT_EQ(family_of(library.text), library.family) << library.text;
    EXPECT_EQ(library_name(library.text), library.name) << library.text;
  }
}

TEST(MpiLibrary, FirstLineJoinsBlanksAndStopsAtTheLineEnd) {
  EXPECT_EQ(first_line("MPICH Version:\t4.0.2\nMPICH Release date:\t..."), "MPICH Version: 4.0.2");
  EXPECT_EQ(first_line("  Intel(R) MPI Library 2021.6 for Linux* OS \r\n"), "Intel(R) MPI Library 2021.6 for Linux* OS");
  EXPECT_EQ(first_line("\nOpen MPI v4.1.4"), "");  // only the first line names the library
}

// Only the first line counts: a configure line naming the other MPI does not change the family.
TEST(MpiLibrary, OnlyTheFirstLineNamesTheFamily) {
  EXPECT_EQ(family_of("MPICH Version:\t4.0.2\nMPICH configure:\t--with-prefix=/opt/Open MPI\n"), MpiFamily::mpich);
  EXPECT_EQ(family_of("SMPI Version 3.32\nbuilt beside MPICH\n"), MpiFamily::unknown);
}

// Every library of the table built against, every one run: accepted within a family across versions and
// derivatives, and where either side is unknown; refused across families, naming both.
TEST(MpiLibrary, EveryPairing) {
  int refused = 0, accepted = 0;
  for (const Library& built : libraries()) {
    for (const Library& running : libraries()) {
      const auto message = library_mismatch(built.family, built.name, running.text);
      const bool differ =
          built.family != MpiFamily::unknown && running.family != MpiFamily::unknown && built.family != running.family;
      ASSERT_EQ(message.has_value(), differ) << "built for '" << built.name << "', running '" << running.name << "'";
      if (!message) {
        ++accepted;
        continue;
      }
      ++refused;
      EXPECT_EQ(message->rfind("herald: libherald_pmpi.so was built for ", 0), 0u) << *message;
      EXPECT_NE(message->find(std::string("built for ") + built.name + " but this program runs " + running.name),
                std::string::npos)
          << *message;
      EXPECT_EQ(message->find('\n'), std::string::npos) << *message;  // one line per process
      // What to rebuild with: the running MPI's family.
      const char* remedy = running.family == MpiFamily::mpich ? "HERALD_MPI=mpich" : "-DMPI_EXECUTABLE_SUFFIX=.openmpi";
      EXPECT_NE(message->find(remedy), std::string::npos) << *message;
      EXPECT_NE(message->find("docs/building.md"), std::string::npos) << *message;
    }
  }
  EXPECT_EQ(refused, 2 * 3 * 8);  // Open MPI x MPICH's family, both ways
  EXPECT_GT(accepted, 0);
}

// The names the library itself is built with (library_check.cpp, from mpi.h's macros).
TEST(MpiLibrary, BuiltNamesFromMpiH) {
  const std::string mpich = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n";
  const std::string ompi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
  EXPECT_EQ(library_mismatch(MpiFamily::open_mpi, "Open MPI v4.1.4", ompi), std::nullopt);
  EXPECT_EQ(library_mismatch(MpiFamily::mpich, "MPICH 4.0.2", mpich), std::nullopt);
  EXPECT_EQ(library_mismatch(MpiFamily::mpich, "MPICH 4.0.2", "Intel(R) MPI Library 2019 Update 6 for Linux* OS"),
            std::nullopt);
  EXPECT_EQ(library_mismatch(MpiFamily::unknown, "an MPI of unknown family", mpich), std::nullopt);
  const auto refused = library_mismatch(MpiFamily::open_mpi, "Open MPI v4.1.4", mpich);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("built for Open MPI v4.1.4 but this program runs MPICH Version: 4.0.2, another MPI ABI"),
            std::string::npos)
      << *refused;
  // A derivative whose name does not say MPICH is named with its family.
  const auto intel = library_mismatch(MpiFamily::open_mpi, "Open MPI v4.1.4", "Intel(R) MPI Library 2019 Update 6 for Linux* OS");
  ASSERT_TRUE(intel);
  EXPECT_NE(intel->find("runs Intel(R) MPI Library 2019 Update 6 for Linux* OS (MPICH's family)"), std::string::npos)
      << *intel;
}

}  // namespace
}  // namespace herald::pmpi
